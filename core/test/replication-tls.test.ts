import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarm, type Swarm } from '@swarm/core';
import { startEtcd, type Service } from '../../test/harness/services.js';
import { makeCertificates } from '../../test/harness/certificates.js';

const run = promisify(execFile);
const ETCD_PORT = 23732;
const [PRIMARY_PORT, REPLICA_PORT] = [23744, 23745];

/** A CA and one certificate for 127.0.0.1 that serves and also authenticates as a client. */
const certificates = (dir: string): Promise<void> =>
  makeCertificates(dir, {
    ca: '/CN=replication-ca',
    certificates: [
      {
        name: 'manager',
        subject: '/CN=127.0.0.1',
        ips: ['127.0.0.1'],
        usage: ['serverAuth', 'clientAuth'],
        keyFile: 'key.pem',
        certFile: 'cert.pem',
      },
    ],
  });

describe('replication behind --tlsverify', () => {
  let etcd: Service;
  let dir: string;
  const swarms: Swarm[] = [];
  const dockerTls = async (port: number, ...args: string[]) =>
    (
      await run(
        'docker',
        [
          '--tlsverify',
          '--tlscacert',
          join(dir, 'ca.pem'),
          '--tlscert',
          join(dir, 'cert.pem'),
          '--tlskey',
          join(dir, 'key.pem'),
          '-H',
          `tcp://127.0.0.1:${port}`,
          ...args,
        ],
        { timeout: 20_000 },
      )
    ).stdout;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-replication-tls-'));
    [etcd] = await Promise.all([startEtcd(ETCD_PORT), certificates(dir)]);
  });

  afterAll(async () => {
    await Promise.all(swarms.map((swarm) => swarm.stop()));
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a replica forwards to the primary over TLS with its own certificate', async () => {
    for (const port of [PRIMARY_PORT, REPLICA_PORT]) {
      const swarm = await createSwarm({
        cluster: { discovery: `etcd://${etcd.addr}/tls-replication`, heartbeat: 1 },
        api: { hosts: [`tcp://127.0.0.1:${port}`] },
        tls: { ca: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), verify: true },
        replication: { enabled: true, advertise: `127.0.0.1:${port}`, ttl: 5 },
      });
      swarms.push(swarm);
      await swarm.start({ api: true });
      if (port === PRIMARY_PORT)
        await expect.poll(() => dockerTls(port, 'info').catch(() => ''), { timeout: 10_000 }).toContain('Role: primary');
    }
    await expect
      .poll(() => dockerTls(REPLICA_PORT, 'info').catch(() => ''), { timeout: 10_000 })
      .toContain(`Primary: 127.0.0.1:${PRIMARY_PORT}`);
    expect(await dockerTls(REPLICA_PORT, 'info')).toContain('Role: replica');
    // A replica forwards these to the primary: they fail unless its TLS dial to the primary works.
    expect((await dockerTls(REPLICA_PORT, 'ps', '-a', '--format', '{{.ID}}')).trim()).toBe('');
    expect(await dockerTls(REPLICA_PORT, 'version', '--format', '{{.Server.Version}}')).toContain('swarm/');
  });
});
