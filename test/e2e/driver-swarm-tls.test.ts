import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { buildSwarm, docker, nodeRows } from './driver-swarm-support.js';
import { makeCertificates } from '../harness/certificates.js';

// engine 18, listening with --tlsverify on 127.0.0.19:2376
const FIRST = 18;

/** A throw-away CA, a server certificate for the engine's address and a client certificate. */
const certificates = (dir: string, ip: string): Promise<void> =>
  makeCertificates(dir, {
    ca: '/CN=swarm-test-ca',
    certificates: [
      { name: 'server', subject: `/CN=${ip}`, ips: [ip], usage: ['serverAuth'] },
      { name: 'client', subject: '/CN=swarm-manager', usage: ['clientAuth'] },
    ],
  });

describe('driver-swarm dialling an engine over TLS', () => {
  let dir: string;
  let testbed: Testbed;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-tls-'));
    await certificates(dir, `127.0.0.${FIRST + 1}`);
    testbed = await startTestbed({ first: FIRST, count: 1, tlsDir: dir });
  });

  afterAll(async () => {
    await testbed?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('connects with the client certificate and runs containers there', async () => {
    const addr = testbed.engines[0]!.addr;
    expect(addr).toBe(`127.0.0.${FIRST + 1}:2376`);
    const tls = { ca: join(dir, 'ca.pem'), cert: join(dir, 'client-cert.pem'), key: join(dir, 'client-key.pem'), verify: true };
    const { swarm, cluster } = await buildSwarm(addr, { tls });
    try {
      await swarm.start();
      const node = cluster.nodes()[0]!;
      expect(node.status()).toBe('healthy');
      expect(node.endpoint()).toMatchObject({ protocol: 'https', host: `127.0.0.${FIRST + 1}`, port: 2376 });
      const container = await cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'] }, 'over-tls');
      const seen = await docker(
        `tcp://${addr}`,
        '--tlsverify',
        '--tlscacert',
        tls.ca,
        '--tlscert',
        tls.cert,
        '--tlskey',
        tls.key,
        'ps',
        '-a',
        '--filter',
        'name=over-tls',
        '--format',
        '{{.ID}}',
      );
      expect(container.id.startsWith(seen)).toBe(true);
    } finally {
      await swarm.stop();
    }
  });

  it('reports a clear error when dialling the TLS engine without certificates', async () => {
    const addr = testbed.engines[0]!.addr;
    const { swarm, cluster } = await buildSwarm(addr, { options: { 'swarm.requesttimeout': '2' } });
    try {
      await swarm.start();
      const rows = nodeRows(cluster.info().systemStatus, '(unknown)');
      expect(rows.get('Status')).toBe('Pending');
      expect(rows.get('Error')).toMatch(
        /not a Docker engine: GET \/info answered HTTP 400 \(Client sent an HTTP request to an HTTPS server/,
      );
    } finally {
      await swarm.stop();
    }
  });
});
