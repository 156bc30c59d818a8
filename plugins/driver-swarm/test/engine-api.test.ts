import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineApi } from '../src/engine-api.js';
import type { ConnectionPlan } from '../src/connection-budget.js';

describe('EngineApi connections', () => {
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"Version":"28.0.0"}'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function connectionsFor(plan: ConnectionPlan): Promise<number> {
    const api = new EngineApi({ endpoint: { protocol: 'http', host: '127.0.0.1', port }, timeoutMs: 5000 });
    api.useConnections(plan);
    const before = connections;
    try {
      await api.version();
      await api.ping(1000);
      await api.ping(1000);
      await api.version();
      return connections - before;
    } finally {
      api.close();
    }
  }

  it('checks liveness on a connection of its own when the plan keeps one', async () => {
    expect(await connectionsFor({ callIdle: 1, livenessIdle: 1, callsInFlight: 64, short: false })).toBe(2);
  });

  it('checks liveness on the calls’ kept connection when the plan keeps only that one, not on a new one per check', async () => {
    expect(await connectionsFor({ callIdle: 1, livenessIdle: 0, callsInFlight: 64, short: false })).toBe(1);
  });

  it('connects anew for every call and check when the plan keeps no connection', async () => {
    expect(await connectionsFor({ callIdle: 0, livenessIdle: 0, callsInFlight: 64, short: false })).toBe(4);
  });
});
