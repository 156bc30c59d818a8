import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import { docker, tempDir } from './api-support.js';
import { makeCertificates } from '../harness/certificates.js';

// Engine 46 (itself --tlsverify, as Swarm classic's --tls flags cover both the API and the engines)
// behind `swarm manage --tlsverify` on port 23405, certificates made here with openssl.
const PORT = 23405;
let testbed: Testbed;
let manager: Manager;
let certs: { path: string; remove(): void };

// One server certificate for the manager and the engine; the manager also presents it to the engine.
const certificates = (dir: string): Promise<void> =>
  makeCertificates(dir, {
    ca: '/CN=swarm-e2e-ca',
    certificates: [
      { name: 'server', subject: '/CN=127.0.0.1', ips: ['127.0.0.1', '127.0.0.47'], usage: ['serverAuth', 'clientAuth'] },
      { name: 'client', subject: '/CN=client', usage: ['clientAuth'] },
    ],
  });

function tlsInfo(): Promise<InfoAnswer | undefined> {
  const file = (name: string) => readFileSync(join(certs.path, name));
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: PORT,
        path: '/info',
        ca: file('ca.pem'),
        cert: file('client-cert.pem'),
        key: file('client-key.pem'),
        timeout: 2000,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text) as InfoAnswer);
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

beforeAll(async () => {
  certs = await tempDir('swarm-e2e-tls-');
  await certificates(certs.path);
  testbed = await startTestbed({ first: 46, count: 1, tlsDir: certs.path });
  const tlsArgs = [
    '--tlsverify',
    '--tlscacert',
    join(certs.path, 'ca.pem'),
    '--tlscert',
    join(certs.path, 'server-cert.pem'),
    '--tlskey',
    join(certs.path, 'server-key.pem'),
  ];
  manager = await startManager({ discovery: testbed.addrs, port: PORT, expectNodes: 1, args: tlsArgs, readInfo: tlsInfo });
});

afterAll(async () => {
  await manager?.stop();
  await testbed?.stop();
  certs?.remove();
});

describe('swarm manage --tlsverify', () => {
  it('serves the docker CLI with a client certificate, interactive streams included', async () => {
    const flags = [
      '--tlsverify',
      '--tlscacert',
      join(certs.path, 'ca.pem'),
      '--tlscert',
      join(certs.path, 'client-cert.pem'),
      '--tlskey',
      join(certs.path, 'client-key.pem'),
    ];
    const ps = await docker(manager.host, [...flags, 'info', '--format', '{{.ServerVersion}}']);
    expect(ps.stdout.trim()).toMatch(/^swarm\//);
    const piped = await docker(manager.host, [...flags, 'run', '-i', '--rm', 'busybox:local', 'cat'], { input: 'secret stdin\n' });
    expect(piped.stdout).toBe('secret stdin\n');
    // Logs come through the framed pipe: TLS from the engine, TLS to the client.
    const id = (await docker(manager.host, [...flags, 'run', '-d', 'busybox:local', 'seq', '1', '50000'])).stdout.trim();
    await docker(manager.host, [...flags, 'wait', id]);
    const logs = await docker(manager.host, [...flags, 'logs', id]);
    expect(logs.stdout).toBe(`${Array.from({ length: 50000 }, (_, index) => index + 1).join('\n')}\n`);
  });

  it('refuses a client without a certificate', async () => {
    const result = await docker(manager.host, ['--tlsverify', '--tlscacert', join(certs.path, 'ca.pem'), 'ps'], {
      env: { DOCKER_CERT_PATH: join(certs.path, 'none') },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/certificate|handshake|tls/i);
  });
});
