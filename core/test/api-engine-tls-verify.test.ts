import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEndpoint } from '@swarm/plugin-sdk';
import { EngineClients } from '../dist/forwarding/index.js';
import { selfSignedCertificate } from '../../test/harness/certificates.js';

// `--tls` without `--tlsverify`: the API front's own calls to an engine (inspect, logs, exec,
// attach) must not verify the engine's certificate either, as the driver's calls do not.
describe('API front to a TLS engine whose certificate is not verified', () => {
  let dir: string;
  let server: Server;
  let port: number;
  const clients = new EngineClients();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-engine-tls-'));
    await selfSignedCertificate(dir, '/CN=self-signed-engine');
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"Id":"engine-answer"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    clients.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const endpoint = (rejectUnauthorized: boolean): EngineEndpoint => ({
    protocol: 'https',
    host: '127.0.0.1',
    port,
    tls: { rejectUnauthorized },
  });

  it('answers through the kept-alive connections when verification is off', async () => {
    expect(await clients.of(endpoint(false)).answer({ path: '/containers/x/json' })).toMatchObject({
      status: 200,
      body: { Id: 'engine-answer' },
    });
  });

  it('refuses the same engine when verification is on, in a client of its own', async () => {
    const verifying = new EngineClients();
    try {
      await expect(verifying.of(endpoint(true)).answer({ path: '/containers/x/json' })).rejects.toThrow(/self[- ]signed certificate/);
    } finally {
      verifying.close();
    }
  });

  it('dials hijacked connections (attach, exec) the same way', async () => {
    const socket = clients.of(endpoint(false)).dial();
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    socket.destroy();
  });
});
