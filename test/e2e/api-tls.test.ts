import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type InfoAnswer, type Manager } from '../harness/manager.js';
import { docker, tempDir } from './api-support.js';

// Engine 46 (itself --tlsverify, as Swarm classic's --tls flags cover both the API and the engines)
// behind `swarm manage --tlsverify` on port 23405, certificates made here with openssl.
const run = promisify(execFile);
const PORT = 23405;
let testbed: Testbed;
let manager: Manager;
let certs: { path: string; remove(): void };

async function makeCertificates(dir: string): Promise<void> {
  const openssl = (args: string[]) => run('openssl', args, { cwd: dir });
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=swarm-e2e-ca',
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
  ]);
  // One server certificate for the manager and the engine; the manager also presents it to the engine.
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,IP:127.0.0.47\nextendedKeyUsage=serverAuth,clientAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, subject] of [
    ['server', '/CN=127.0.0.1'],
    ['client', '/CN=client'],
  ] as const) {
    await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`]);
    await openssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}-cert.pem`,
    ]);
  }
}

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
  await makeCertificates(certs.path);
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
