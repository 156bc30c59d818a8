import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scheduler } from '@swarm/plugin-sdk';
import { startTestbed, type Testbed } from '../../test/harness/engines.js';
import { startApiServer, type ApiServer } from '../dist/api/index.js';
import { EngineCluster } from './api-engine-cluster.js';
import { docker, hostPort } from './api-test-client.js';
import { recordingLogger } from './api-recording-logger.js';
import { localServerAndClient } from '../../test/harness/certificates.js';

let testbed: Testbed;
let cluster: EngineCluster;
let server: ApiServer;
let dir: string;
let host: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swarm-tls-'));
  const [bed] = await Promise.all([startTestbed({ first: 31, count: 1 }), localServerAndClient(dir)]);
  testbed = bed;
  const engine = testbed.engines[0]!;
  cluster = new EngineCluster({ protocol: 'http', host: engine.host, port: engine.port }, engine.name);
  await cluster.start();
  server = await startApiServer({
    cluster,
    scheduler: {} as Scheduler,
    settings: {
      hosts: ['tcp://127.0.0.1:0'],
      cors: false,
      tls: { ca: join(dir, 'ca.pem'), cert: join(dir, 'server-cert.pem'), key: join(dir, 'server-key.pem'), verify: true },
    },
    logger: recordingLogger(),
    version: '0.1.0-test',
  });
  host = server.addresses[0]!;
});

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
  await testbed?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function tlsFlags(withClientCert: boolean): string[] {
  const flags = ['--tlsverify', '--tlscacert', join(dir, 'ca.pem')];
  if (withClientCert) flags.push('--tlscert', join(dir, 'client-cert.pem'), '--tlskey', join(dir, 'client-key.pem'));
  return flags;
}

describe('--tlsverify listener', () => {
  it('serves the docker CLI that presents a client certificate', async () => {
    const result = await docker(host, [...tlsFlags(true), 'run', '--rm', 'busybox:local', 'echo', 'over-tls']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('over-tls\n');
    const piped = await docker(host, [...tlsFlags(true), 'run', '-i', '--rm', 'busybox:local', 'cat'], 'stdin over tls\n');
    expect(piped.stdout).toBe('stdin over tls\n');
  });

  it('refuses a client without a certificate', async () => {
    const env = { DOCKER_CERT_PATH: join(dir, 'none') };
    const result = await docker(host, [...tlsFlags(false), 'version', '--format', '{{.Server.Version}}'], undefined, env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('swarm/');
    expect(result.stderr).toMatch(/certificate|tls|handshake/i);
  });

  it('refuses plain HTTP and TLS older than 1.2', async () => {
    const plain = await docker(host, ['version', '--format', '{{.Server.Version}}']);
    expect(plain.code).not.toBe(0);
    const { host: ip, port } = hostPort(host);
    const old = await new Promise<string>((resolve) => {
      const req = request({ host: ip, port, path: '/_ping', maxVersion: 'TLSv1.1', minVersion: 'TLSv1', rejectUnauthorized: false }, () =>
        resolve('answered'),
      );
      req.on('error', (error) => resolve(error.message));
      req.end();
    });
    expect(old).not.toBe('answered');
  });
});
