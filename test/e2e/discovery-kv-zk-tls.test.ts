import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { healthyNodeCount, startManager, type Manager } from '../harness/manager.js';
import { makeZooKeeperTlsFiles, startZooKeeper, type Service } from '../harness/services.js';
import type { TestCertificates } from '../mesos-double/certificates.js';
import { eventually, startJoin, swarmList, type JoinProcess } from './discovery-kv-support.js';
import { docker, killManager, primariesAmong, readRole } from './replication-support.js';

// Engine 115; ZooKeeper on 25740 (plain) and 25741 (TLS); managers on 25742-25743: no other file uses them.
const ZK_PORT = 25740;
const ZK_SECURE_PORT = 25741;
const MANAGER_PORTS = [25742, 25743] as const;
const TTL_SECONDS = 5;
const SWARM_BIN = fileURLToPath(new URL('../../core/dist/cli/bin.js', import.meta.url));
const run = promisify(execFile);

describe('swarm join, list and manage --replication over TLS to ZooKeeper (kv.cacertfile, kv.certfile, kv.keyfile)', () => {
  let dir: string;
  let certs: TestCertificates;
  let strangerCa: string;
  let testbed: Testbed;
  let zk: Service;
  let discovery: string;
  const joins: JoinProcess[] = [];
  const managers: Manager[] = [];
  const kvArgs = (ca = certs.ca) => [
    '--discovery-opt',
    `kv.cacertfile=${ca}`,
    '--discovery-opt',
    `kv.certfile=${certs.clientCert}`,
    '--discovery-opt',
    `kv.keyfile=${certs.clientKey}`,
  ];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-zk-tls-e2e-'));
    let keyAndCert: string;
    ({ certs, keyAndCertFile: keyAndCert, strangerCa } = await makeZooKeeperTlsFiles(dir));
    [testbed, zk] = await Promise.all([
      startTestbed({ first: 115, count: 1 }),
      startZooKeeper(ZK_PORT, { securePort: ZK_SECURE_PORT, keyAndCertFile: keyAndCert, caFile: certs.ca }),
    ]);
    discovery = `zk://${zk.secureAddr!}/tls`;
  });

  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.stop()));
    await Promise.all(joins.map((join) => join.kill()));
    await zk?.stop();
    await testbed?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('swarm join registers the engine over TLS and swarm list prints it', async () => {
    const engine = testbed.engines[0]!;
    joins.push(startJoin(discovery, engine.addr, '20s', kvArgs()));
    await eventually(
      async () => (await swarmList(discovery, kvArgs()).catch((): string[] => [])).includes(engine.addr),
      'swarm list to print the joined engine',
      30_000,
    );
    expect(await swarmList(discovery, kvArgs())).toEqual([engine.addr]);
  });

  it('swarm list with a CA that did not sign the server fails with a clear TLS error', async () => {
    const failure = await run(process.execPath, [SWARM_BIN, 'list', '--timeout', '5s', ...kvArgs(strangerCa), discovery], {
      timeout: 20_000,
    }).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failure?.code).not.toBe(0);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr).toContain(
      `zk: TLS to ZooKeeper at ${zk.secureAddr!} failed: unable to verify the first certificate (check kv.cacertfile, kv.certfile and kv.keyfile)`,
    );
  });

  it('replicated managers elect one primary over TLS, schedule on the joined engine, and fail over within the TTL', async () => {
    managers.push(
      ...(await Promise.all(
        MANAGER_PORTS.map((port) =>
          startManager({
            discovery,
            port,
            expectNodes: 1,
            timeoutMs: 60_000,
            args: [
              '--replication',
              '--advertise',
              `127.0.0.1:${port}`,
              '--replication-ttl',
              `${TTL_SECONDS}s`,
              '--heartbeat',
              '1s',
              ...kvArgs(),
            ],
          }),
        ),
      )),
    );
    const ports = [...MANAGER_PORTS];
    await eventually(async () => (await primariesAmong(ports)).length === 1, 'one primary', 15_000);
    const [primary] = await primariesAmong(ports);
    const replica = ports.find((port) => port !== primary)!;
    await eventually(async () => (await readRole(replica)).primary === `127.0.0.1:${primary}`, 'the replica to follow the primary', 10_000);
    const replicaManager = managers.find((manager) => manager.port === replica)!;
    expect(await docker(replicaManager.host, 'run', '--rm', 'busybox:local', 'echo', 'over TLS')).toBe('over TLS');

    const killedAt = await killManager(managers.find((manager) => manager.port === primary)!);
    await eventually(async () => (await readRole(replica)).role === 'primary', 'the replica to take over', 20_000);
    const seenMs = Date.now() - killedAt;
    console.log(`zk over TLS: replica primary ${seenMs} ms after kill -9 of the primary (TTL ${TTL_SECONDS}s)`);
    // This file polls every 200 ms and /info takes a moment on a loaded machine: 1 s of margin.
    expect(seenMs).toBeLessThanOrEqual(TTL_SECONDS * 1000 + 1000);
    const info = JSON.parse(await docker(replicaManager.host, 'info', '--format', '{{json .SystemStatus}}')) as Array<[string, string]>;
    expect(healthyNodeCount({ SystemStatus: info })).toBe(1);
    expect(replicaManager.output()).not.toContain('TLS to ZooKeeper');
  });

  it('the TLS bridge serves only the manager itself: another local process gets its connection closed, unanswered', async () => {
    // one of the managers above, still running: its bridge listens on loopback ports only it dials
    const manager = managers.find((candidate) => candidate.running())!;
    const { stdout } = await run('ss', ['-Hltnp']);
    const bridgePorts = stdout
      .split('\n')
      .filter((line) => line.includes(`pid=${manager.pid},`))
      .map((line) => /127\.0\.0\.1:(\d+)\s/.exec(line)?.[1])
      .filter((port): port is string => port !== undefined && Number(port) !== manager.port)
      .map(Number);
    expect(bridgePorts.length).toBeGreaterThan(0);
    for (const port of bridgePorts) {
      const answer = await new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const socket = connect(port, '127.0.0.1', () => {
          // a ZooKeeper ConnectRequest's first bytes: the stranger would get a session on our certificate
          socket.write(Buffer.from('0000002c00000000000000000000000000007530000000000000000000000010' + '00'.repeat(16), 'hex'));
        });
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        // closed with our bytes unread, the kernel answers with a reset: closed all the same, and unanswered
        socket.on('error', (error: NodeJS.ErrnoException) =>
          error.code === 'ECONNRESET' ? resolve(Buffer.concat(chunks)) : reject(error),
        );
        setTimeout(() => reject(new Error(`port ${port} kept a stranger's connection open`)), 10_000).unref();
      });
      expect(answer.length).toBe(0);
    }
    // and the manager's own sessions go on over the same listeners
    expect(await docker(manager.host, 'run', '--rm', 'busybox:local', 'echo', 'still over TLS')).toBe('still over TLS');
  });
});
