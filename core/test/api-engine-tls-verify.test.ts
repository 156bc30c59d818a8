import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEndpoint } from '@swarm/plugin-sdk';
import { dialEngine } from '../dist/api/engine/dial.js';
import { engineJson } from '../dist/api/engine/endpoint-request.js';

const run = promisify(execFile);

// `--tls` without `--tlsverify`: the API front's own calls to an engine (inspect, logs, exec,
// attach) must not verify the engine's certificate either, as the driver's calls do not.
describe('API front to a TLS engine whose certificate is not verified', () => {
  let dir: string;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-engine-tls-'));
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=self-signed-engine',
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
      ],
      { cwd: dir },
    );
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"Id":"engine-answer"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const endpoint = (rejectUnauthorized: boolean, host = '127.0.0.1'): EngineEndpoint => ({
    protocol: 'https',
    host,
    port,
    tls: { rejectUnauthorized },
  });

  it('answers through the kept-alive agent when verification is off', async () => {
    expect(await engineJson(endpoint(false), 'GET', '/containers/x/json')).toMatchObject({ status: 200, body: { Id: 'engine-answer' } });
  });

  // (agents are kept per address, so this case reaches the engine by another name)
  it('refuses the same engine when verification is on', async () => {
    await expect(engineJson(endpoint(true, 'localhost'), 'GET', '/containers/x/json')).rejects.toThrow(/self[- ]signed certificate/);
  });

  it('dials hijacked connections (attach, exec) the same way', async () => {
    const socket = dialEngine(endpoint(false));
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    socket.destroy();
  });
});
