import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import type { Service } from '../harness/services.js';
import { tempDir } from './api-support.js';
import { accessConfig, dockerAs, httpsCall, makeAccessCertificates, managerTlsArgs, type Person } from './access-support.js';
import { eventually, startJoin, startStore, type JoinProcess } from './discovery-kv-support.js';
import { FORWARDED_CALLER_HEADER, encodeForwardedCaller } from '../../core/dist/access/forwarded-identity.js';

// Engine 220 (TLS) joined to etcd on 27480 (and 27481), two managers on 27482 and 27483 with the
// same access config: whoever calls a replica is who the primary judges; nobody else can claim to be.
const STORE_PORT = 27480;
const PORTS = [27482, 27483] as const;
let certs: { path: string; remove(): void };
let testbed: Testbed;
let store: Service;
let joined: JoinProcess;
const managers: Manager[] = [];

const adminClaim = encodeForwardedCaller({ user: 'root-admin', groups: ['admins'], method: 'TLS' });

async function roleOf(port: number): Promise<string | undefined> {
  const answer = await httpsCall(certs.path, port, 'admin', 'GET', '/info').catch(() => undefined);
  if (answer?.status !== 200) return undefined;
  const rows = (JSON.parse(answer.text) as InfoAnswer).SystemStatus ?? [];
  return rows.find(([key]) => key === 'Role')?.[1];
}

const as = (port: number, person: Person, args: string[]) => dockerAs(certs.path, `tcp://127.0.0.1:${port}`, person, args);

let primary: number;
let replica: number;

beforeAll(async () => {
  certs = await tempDir('swarm-e2e-access-replication-');
  await makeAccessCertificates(certs.path, ['127.0.0.221']);
  writeFileSync(join(certs.path, 'swarm.config.json'), JSON.stringify(accessConfig(undefined)));
  [testbed, store] = await Promise.all([startTestbed({ first: 220, count: 1, tlsDir: certs.path }), startStore('etcd', STORE_PORT)]);
  const discovery = `etcd://${store.addr}/access-replication`;
  joined = startJoin(discovery, testbed.engines[0]!.addr, '20s');
  for (const port of PORTS) {
    managers.push(
      await startManager({
        discovery,
        port,
        expectNodes: 1,
        args: [
          '--config',
          join(certs.path, 'swarm.config.json'),
          ...managerTlsArgs(certs.path),
          '--replication',
          '--advertise',
          `127.0.0.1:${port}`,
          '--heartbeat',
          '1s',
        ],
        readInfo: async () => {
          const answer = await httpsCall(certs.path, port, 'admin', 'GET', '/info').catch(() => undefined);
          return answer?.status === 200 ? (JSON.parse(answer.text) as InfoAnswer) : undefined;
        },
        timeoutMs: 60_000,
      }),
    );
  }
  await eventually(
    async () => (await Promise.all(PORTS.map(roleOf))).sort().join() === 'primary,replica',
    'a primary and a replica',
    30_000,
  );
  const roles = await Promise.all(PORTS.map(roleOf));
  primary = PORTS[roles.indexOf('primary')]!;
  replica = PORTS[roles.indexOf('replica')]!;
}, 180_000);

afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  await joined?.kill();
  await Promise.all([testbed?.stop(), store?.stop()]);
  certs?.remove();
});

describe('access control across replicas', () => {
  it('a container created through the replica is owned by its caller, who alone sees it', async () => {
    const run = await as(replica, 'alice', ['run', '-d', '--name', 'alice-via-replica', 'busybox:local', 'sleep', '600']);
    expect(run.stderr).toBe('');
    const owner = await as(primary, 'admin', ['inspect', '-f', '{{index .Config.Labels "com.docker.swarm.owner"}}', 'alice-via-replica']);
    expect(owner.stdout.trim()).toBe('alice');
    const bob = await as(replica, 'bob', ['inspect', 'alice-via-replica']);
    expect(bob.code).not.toBe(0);
    expect(bob.stderr).toContain('No such object: alice-via-replica');
    const ps = await as(replica, 'alice', ['ps', '--format', '{{.Names}}']);
    expect(ps.stdout).toContain('alice-via-replica');
  });

  it('a client that claims to be someone else is ignored, at the primary and through the replica', async () => {
    for (const port of [primary, replica]) {
      const metrics = await httpsCall(certs.path, port, 'alice', 'GET', '/_swarm/metrics', undefined, {
        [FORWARDED_CALLER_HEADER]: adminClaim,
      });
      expect(metrics.status).toBe(403);
      expect(JSON.parse(metrics.text).message).toContain('user alice');
    }
  });

  it("an upgraded request through the replica is its caller's: docker exec works, a claim to be the admin is ignored", async () => {
    const exec = await as(replica, 'alice', ['exec', 'alice-via-replica', 'echo', 'exec-via-replica']);
    expect({ code: exec.code, stdout: exec.stdout }).toEqual({ code: 0, stdout: 'exec-via-replica\n' });
    const bobRun = [
      'run',
      '-d',
      '--name',
      'bob-upgrade',
      '--user',
      '1000',
      '--security-opt',
      'no-new-privileges',
      '-m',
      '64m',
      '--cpus',
      '0.5',
    ];
    expect((await as(primary, 'bob', [...bobRun, 'busybox:local', 'sleep', '600'])).stderr).toBe('');
    const file = (name: string) => readFileSync(join(certs.path, name));
    const answer = await new Promise<string>((resolve) => {
      const socket = connect({
        host: '127.0.0.1',
        port: replica,
        ca: file('ca.pem'),
        cert: file('alice-cert.pem'),
        key: file('alice-key.pem'),
      });
      let text = '';
      const done = () => {
        socket.destroy();
        resolve(text);
      };
      setTimeout(done, 5_000);
      socket.on('secureConnect', () =>
        socket.write(
          `POST /v1.41/containers/bob-upgrade/attach?stream=1&stdout=1 HTTP/1.1\r\nHost: swarm\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n` +
            `${FORWARDED_CALLER_HEADER}: ${adminClaim}\r\nContent-Length: 0\r\n\r\n`,
        ),
      );
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', done);
      socket.on('error', done);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(answer).toContain('No such container: bob-upgrade');
  });

  it('a manager (certificate in the managers group) is believed when it vouches for a caller', async () => {
    const metrics = await httpsCall(certs.path, primary, 'manager', 'GET', '/_swarm/metrics', undefined, {
      [FORWARDED_CALLER_HEADER]: adminClaim,
    });
    expect(metrics.status).toBe(200);
    const asBob = encodeForwardedCaller({ user: 'bob', groups: ['team-b'], method: 'TLS' });
    const list = await httpsCall(certs.path, primary, 'manager', 'GET', '/containers/json', undefined, {
      [FORWARDED_CALLER_HEADER]: asBob,
    });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('alice-via-replica');
  });
});
