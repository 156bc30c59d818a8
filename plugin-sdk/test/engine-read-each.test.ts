import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, type EngineEndpoint } from '@swarm/plugin-sdk';
import { CallSlots, EngineClient, SdkErrors } from '@swarm/plugin-sdk/helpers';

/** An engine-like server: inspects of a1..a9 answer, `gone` is 404, `chunked` comes in parts, `hang` never answers. */
class InspectServer {
  readonly connections: Socket[] = [];
  readonly requests: Array<{ url: string; connection: string | undefined; socket: Socket }> = [];
  /** Answer with `Connection: close` (an engine behind a proxy that does not keep connections). */
  closeEach = false;
  private readonly server: Server = createServer((req, res) => {
    this.requests.push({ url: req.url ?? '', connection: req.headers.connection, socket: req.socket });
    const id = /^\/containers\/([^/]+)\/json$/.exec((req.url ?? '').split('?')[0]!)?.[1];
    if (this.closeEach) res.setHeader('Connection', 'close');
    if (id === 'hang') return;
    if (id === 'gone') return json(res, 404, { message: 'No such container: gone' });
    if (id === 'html') return void res.writeHead(200).end('<html>');
    if (id === 'chunked') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"Id":');
      setTimeout(() => res.end('"chunked"}'), 20);
      return;
    }
    json(res, 200, { Id: id, Query: req.url?.split('?')[1] ?? null });
  });

  constructor() {
    this.server.on('connection', (socket) => this.connections.push(socket));
  }

  async listen(): Promise<EngineEndpoint> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return { protocol: 'http', host: '127.0.0.1', port: (this.server.address() as AddressInfo).port };
  }

  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const inspect = (id: string) => ({ path: `/containers/${id}/json` });

describe('EngineClient.readEach', () => {
  const engine = new InspectServer();
  let endpoint: EngineEndpoint;

  beforeAll(async () => {
    endpoint = await engine.listen();
  });
  afterAll(() => engine.close());

  it('pipelines the reads on one connection and settles each as json() would, in order', async () => {
    const client = new EngineClient(endpoint);
    const before = { connections: engine.connections.length, requests: engine.requests.length };
    try {
      const results = await client.readEach([
        inspect('a1'),
        inspect('gone'),
        inspect('chunked'),
        { path: '/containers/a2/json', query: { size: 1 } },
        inspect('html'),
      ]);
      expect(results[0]).toEqual({ status: 'fulfilled', value: { Id: 'a1', Query: null } });
      expect(results[1]).toMatchObject({
        status: 'rejected',
        reason: { code: ErrorCodes.NOT_FOUND, httpStatus: 404, message: 'No such container: gone' },
      });
      expect(results[2]).toEqual({ status: 'fulfilled', value: { Id: 'chunked' } });
      expect(results[3]).toEqual({ status: 'fulfilled', value: { Id: 'a2', Query: 'size=1' } });
      expect(results[4]).toMatchObject({
        status: 'rejected',
        reason: {
          code: ErrorCodes.ENGINE_ERROR,
          message: `${client.label} answered /containers/html/json with something that is not JSON`,
        },
      });
      const requests = engine.requests.slice(before.requests);
      expect(engine.connections.length - before.connections).toBe(1);
      expect(new Set(requests.map((request) => request.socket)).size).toBe(1);
      // only the last asks the engine to close the connection once it has answered
      expect(requests.map((request) => request.connection)).toEqual([undefined, undefined, undefined, undefined, 'close']);
    } finally {
      client.close();
    }
  });

  it('asks again, one by one, what an engine closing after each answer left unanswered', async () => {
    const client = new EngineClient(endpoint);
    engine.closeEach = true;
    try {
      const results = await client.readEach(['a1', 'a2', 'a3', 'a4'].map(inspect));
      expect(results.map((result) => (result.status === 'fulfilled' ? result.value : result.reason))).toEqual(
        ['a1', 'a2', 'a3', 'a4'].map((Id) => ({ Id, Query: null })),
      );
    } finally {
      engine.closeEach = false;
      client.close();
    }
  });

  it('fails every read with the coded error when the engine is not reached, does not answer in time, or the caller cancels', async () => {
    const closed = new EngineClient({ protocol: 'http', host: '127.0.0.1', port: 1 });
    const refused = await closed.readEach([inspect('a1'), inspect('a2')]);
    for (const result of refused) {
      expect(result).toMatchObject({ status: 'rejected', reason: { code: ErrorCodes.ENGINE_UNREACHABLE } });
      expect(SdkErrors.engineUnreachable.is((result as PromiseRejectedResult).reason)).toBe(true);
    }
    closed.close();

    const client = new EngineClient(endpoint, { timeoutMs: 200 });
    try {
      const hung = await client.readEach([inspect('a1'), inspect('hang'), inspect('a2')]);
      expect(hung[0]).toEqual({ status: 'fulfilled', value: { Id: 'a1', Query: null } });
      for (const result of hung.slice(1)) {
        expect(result).toMatchObject({
          status: 'rejected',
          reason: {
            code: ErrorCodes.ENGINE_UNREACHABLE,
            message: `Cannot connect to the Docker engine endpoint ${client.label}: no answer within 0.2 s`,
          },
        });
      }
      const leaving = new AbortController();
      setTimeout(() => leaving.abort(), 50);
      const cancelled = await client.readEach([inspect('hang'), inspect('a1')], { signal: leaving.signal, timeoutMs: 5000 });
      for (const result of cancelled) expect(result).toMatchObject({ status: 'rejected', reason: { code: ErrorCodes.CANCELLED } });
    } finally {
      client.close();
    }
  });

  it('holds one of the shared slots for the whole pipeline', async () => {
    const slots = new CallSlots(1);
    const client = new EngineClient(endpoint, { slots });
    try {
      const reading = client.readEach(['a1', 'a2', 'a3'].map(inspect));
      expect(slots.inFlight).toBe(1);
      const single = client.json(inspect('a4'));
      expect(slots.queued).toBe(1);
      expect((await reading).every((result) => result.status === 'fulfilled')).toBe(true);
      expect(await single).toEqual({ Id: 'a4', Query: null });
      expect(slots.inFlight).toBe(0);
    } finally {
      client.close();
    }
  });
});
