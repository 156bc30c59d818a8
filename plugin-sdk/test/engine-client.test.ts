import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError, type EngineEndpoint } from '@swarm/plugin-sdk';
import { CallSlots, EngineClient, isEngineUnreachable, readJsonLines, SdkErrors } from '@swarm/plugin-sdk/helpers';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** An HTTP server answering as an engine does for the paths a test sets up; it records every request. */
class FakeEngine {
  readonly seen: Seen[] = [];
  readonly sockets = new Set<Socket>();
  private readonly routes = new Map<string, Route>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      this.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, socket: req.socket });
      const route = this.routes.get(`${req.method} ${(req.url ?? '').split('?')[0]}`);
      if (route) route(req, res, body);
      else res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'page not found' }));
    });
  });

  constructor() {
    this.server.on('connection', (socket) => this.sockets.add(socket));
  }

  on(method: string, path: string, route: Route): this {
    this.routes.set(`${method} ${path}`, route);
    return this;
  }

  async listen(): Promise<EngineEndpoint> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return { protocol: 'http', host: '127.0.0.1', port: (this.server.address() as AddressInfo).port };
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('EngineClient', () => {
  const engine = new FakeEngine();
  let endpoint: EngineEndpoint;

  beforeAll(async () => {
    engine
      .on('GET', '/info', (_req, res) => json(res, 200, { ID: 'E1', NCPU: 2 }))
      .on('POST', '/containers/create', (_req, res, body) => json(res, 201, { Id: 'c1', echoed: JSON.parse(body) as unknown }))
      .on('POST', '/containers/c1/start', (_req, res) => res.writeHead(204).end())
      .on('GET', '/containers/gone/json', (_req, res) => json(res, 404, { message: 'No such container: gone' }))
      .on('DELETE', '/containers/busy', (_req, res) => json(res, 409, { message: 'container busy is running' }))
      .on('GET', '/broken', (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('something broke\n'))
      .on('GET', '/empty-error', (_req, res) => res.writeHead(502).end())
      .on('GET', '/not-json', (_req, res) => res.writeHead(200).end('<html>'))
      .on('GET', '/hang', () => undefined)
      .on('GET', '/trickle', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        setTimeout(() => res.end('1]'), 600);
      })
      .on('POST', '/images/load', (req, res, body) =>
        json(res, 200, { type: req.headers['content-type'], length: req.headers['content-length'], body }),
      )
      .on('GET', '/events', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"Action":"start"}\n');
        setTimeout(() => res.end('{"Action":"die"}\n'), 400);
      });
    endpoint = await engine.listen();
  });

  afterAll(() => engine.close());

  it('answers JSON calls with the parsed body, nothing for an empty answer, and sends queries, bodies and credentials as Docker does', async () => {
    const client = new EngineClient(endpoint);
    try {
      expect(await client.json({ path: '/info' })).toEqual({ ID: 'E1', NCPU: 2 });
      const created = await client.answer({
        method: 'POST',
        path: '/containers/create',
        query: { name: 'web', skipped: undefined },
        body: { Image: 'busybox' },
        auth: { username: 'u?', password: 'p>' },
      });
      expect(created).toEqual({ status: 201, body: { Id: 'c1', echoed: { Image: 'busybox' } } });
      expect(await client.json({ method: 'POST', path: '/containers/c1/start' })).toBeUndefined();
      const create = engine.seen.find((seen) => seen.url.startsWith('/containers/create'))!;
      expect(create.url).toBe('/containers/create?name=web');
      expect(create.headers['content-type']).toBe('application/json');
      expect(create.headers.host).toBe(`${endpoint.host}:${endpoint.port}`);
      const auth = create.headers['x-registry-auth'] as string;
      expect(auth).not.toMatch(/[+/]/);
      expect(JSON.parse(Buffer.from(auth, 'base64url').toString('utf8'))).toEqual({ username: 'u?', password: 'p>' });
      expect(await client.json({ method: 'POST', path: '/images/load', upload: Buffer.from('tar!') })).toEqual({
        type: 'application/tar',
        length: '4',
        body: 'tar!',
      });
    } finally {
      client.close();
    }
  });

  it("turns an engine's refusal into a coded error with the engine's status and message", async () => {
    const client = new EngineClient(endpoint);
    try {
      const missing = await failure(client.json({ path: '/containers/gone/json' }));
      expect(missing).toMatchObject({ code: ErrorCodes.NOT_FOUND, httpStatus: 404, message: 'No such container: gone' });
      expect(SdkErrors.engineNotFound.is(missing)).toBe(true);
      const busy = await failure(client.json({ method: 'DELETE', path: '/containers/busy' }));
      expect(busy).toMatchObject({ code: ErrorCodes.CONFLICT, httpStatus: 409, message: 'container busy is running' });
      expect(await failure(client.json({ path: '/broken' }))).toMatchObject({
        code: ErrorCodes.ENGINE_ERROR,
        httpStatus: 500,
        message: 'something broke',
      });
      expect(await failure(client.json({ path: '/empty-error' }))).toMatchObject({ httpStatus: 502, message: 'HTTP 502' });
      expect(await failure(client.json({ path: '/not-json' }))).toMatchObject({
        code: ErrorCodes.ENGINE_ERROR,
        message: `${client.label} answered /not-json with something that is not JSON`,
      });
      for (const error of [missing, busy]) expect(isEngineUnreachable(error)).toBe(false);
    } finally {
      client.close();
    }
  });

  it('tells an engine it could not reach, or that did not answer in time (the whole JSON answer counts)', async () => {
    const closed = new EngineClient({ protocol: 'http', host: '127.0.0.1', port: 1 });
    const refused = await failure(closed.json({ path: '/info' }));
    expect(isEngineUnreachable(refused)).toBe(true);
    expect(refused).toMatchObject({ code: ErrorCodes.ENGINE_UNREACHABLE, httpStatus: 500 });
    expect((refused as Error).message).toMatch(/^Cannot connect to the Docker engine endpoint 127\.0\.0\.1:1: .*ECONNREFUSED/);
    closed.close();

    const slow = new EngineClient(endpoint, { timeoutMs: 200 });
    try {
      const hung = await failure(slow.json({ path: '/hang' }));
      expect(hung).toMatchObject({
        code: ErrorCodes.ENGINE_UNREACHABLE,
        message: `Cannot connect to the Docker engine endpoint ${slow.label}: no answer within 0.2 s`,
      });
      expect(await failure(slow.json({ path: '/trickle' }))).toMatchObject({ code: ErrorCodes.ENGINE_UNREACHABLE });
      expect(await slow.json({ path: '/trickle', timeoutMs: 2000 })).toEqual([1]);
    } finally {
      slow.close();
    }
  });

  it('cancels a call when its signal aborts, before or during it', async () => {
    const client = new EngineClient(endpoint);
    try {
      const aborted = new AbortController();
      aborted.abort();
      expect(await failure(client.json({ path: '/info', signal: aborted.signal }))).toMatchObject({ code: ErrorCodes.CANCELLED });
      const leaving = new AbortController();
      const pending = client.json({ path: '/hang', signal: leaving.signal });
      setTimeout(() => leaving.abort(), 50);
      const cancelled = await failure(pending);
      expect(cancelled).toMatchObject({ code: ErrorCodes.CANCELLED, message: `request to ${client.label} cancelled` });
      expect(isEngineUnreachable(cancelled)).toBe(false);
    } finally {
      client.close();
    }
  });

  it('reuses kept-alive connections for calls, gives streams their own, and never shares them with another client', async () => {
    const before = engine.sockets.size;
    const first = new EngineClient(endpoint);
    const second = new EngineClient(endpoint);
    try {
      for (let call = 0; call < 5; call++) await first.json({ path: '/info' });
      expect(engine.sockets.size - before).toBe(1);
      await second.json({ path: '/info' });
      expect(engine.sockets.size - before).toBe(2);
      const events: unknown[] = [];
      const stream = await first.stream({ path: '/events', timeoutMs: 100 });
      expect(engine.sockets.size - before).toBe(3);
      // the body outlives the timeout: only the head was bounded
      await new Promise<void>((resolve, reject) =>
        readJsonLines(stream, { value: (event) => events.push(event), end: (error) => (error ? reject(error) : resolve()) }),
      );
      expect(events).toEqual([{ Action: 'start' }, { Action: 'die' }]);
      expect(await failure(first.stream({ path: '/nowhere' }))).toMatchObject({ code: ErrorCodes.NOT_FOUND, message: 'page not found' });
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('readJsonLines', () => {
  it('reads values across chunk boundaries, skips blank lines, reports malformed ones, keeps a last line without newline, ends once', async () => {
    const input = new PassThrough();
    const values: unknown[] = [];
    const malformed: string[] = [];
    const ended: Array<Error | undefined> = [];
    const done = new Promise<void>((resolve) =>
      readJsonLines(input, {
        value: (value) => values.push(value),
        malformed: (line) => malformed.push(line),
        end: (error) => {
          ended.push(error);
          resolve();
        },
      }),
    );
    input.write('{"a":');
    input.write('1}\n\n  \n{"b"');
    input.write(':2}\nnot json\n[3]');
    input.end();
    await done;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(values).toEqual([{ a: 1 }, { b: 2 }, [3]]);
    expect(malformed).toEqual(['not json']);
    expect(ended).toEqual([undefined]);
  });

  it('ends with the stream error, without the torn last line', async () => {
    const input = new PassThrough();
    const values: unknown[] = [];
    const ended = new Promise<Error | undefined>((resolve) => readJsonLines(input, { value: (value) => values.push(value), end: resolve }));
    input.write('{"a":1}\n{"torn":');
    input.destroy(new Error('reset'));
    expect((await ended)?.message).toBe('reset');
    expect(values).toEqual([{ a: 1 }]);
    expect(isSwarmError(new Error('x'))).toBe(false);
  });
});

describe('EngineClient with shared CallSlots', () => {
  const engine = new FakeEngine();
  let endpoint: EngineEndpoint;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    engine
      .on('GET', '/held', (_req, res) => held.push(res))
      .on('GET', '/version', (_req, res) => json(res, 200, { Version: '28.0.0' }))
      .on('GET', '/events', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).write('\n'));
    endpoint = await engine.listen();
  });
  afterAll(() => engine.close());

  it('keeps calls over all clients within the shared limit, in arrival order; streams are not counted', async () => {
    const slots = new CallSlots(2);
    const first = new EngineClient(endpoint, { slots });
    const second = new EngineClient(endpoint, { slots });
    try {
      const events = await first.stream({ path: '/events' });
      const calls = [first.json({ path: '/held' }), second.json({ path: '/held' }), second.json({ path: '/version' })];
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(held).toHaveLength(2);
      expect(slots.inFlight).toBe(2);
      expect(slots.queued).toBe(1);
      json(held.shift()!, 200, { n: 1 });
      expect(await calls[0]).toEqual({ n: 1 });
      // the third call got the freed slot, without counting its wait against its timeout
      expect(await calls[2]).toEqual({ Version: '28.0.0' });
      json(held.shift()!, 200, { n: 2 });
      expect(await calls[1]).toEqual({ n: 2 });
      expect(slots.inFlight).toBe(0);
      events.destroy();
    } finally {
      first.close();
      second.close();
    }
  });

  it('frees a slot when a call fails or is cancelled while it waits', async () => {
    const slots = new CallSlots(1);
    const client = new EngineClient(endpoint, { slots, timeoutMs: 200 });
    try {
      const hung = failure(client.json({ path: '/held' }));
      const aborter = new AbortController();
      const waiting = failure(client.json({ path: '/version', signal: aborter.signal }));
      aborter.abort();
      expect(await waiting).toMatchObject({ code: ErrorCodes.CANCELLED, message: `request to 127.0.0.1:${endpoint.port} cancelled` });
      expect(SdkErrors.engineCallCancelled.is(await waiting)).toBe(true);
      expect(isEngineUnreachable(await hung)).toBe(true);
      expect(slots.inFlight).toBe(0);
      expect(await client.json({ path: '/version' })).toEqual({ Version: '28.0.0' });
    } finally {
      held.splice(0).forEach((res) => res.destroy());
      client.close();
    }
  });

  it('lets a call marked bypassSlots through while every slot is taken (liveness checks)', async () => {
    const slots = new CallSlots(1);
    const client = new EngineClient(endpoint, { slots });
    try {
      const busy = client.json({ path: '/held' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(slots.inFlight).toBe(1);
      expect(await client.json({ path: '/version', bypassSlots: true })).toEqual({ Version: '28.0.0' });
      expect(slots.queued).toBe(0);
      json(held.shift()!, 200, { n: 3 });
      expect(await busy).toEqual({ n: 3 });
    } finally {
      held.splice(0).forEach((res) => res.destroy());
      client.close();
    }
  });

  it('connects anew for each call when told to keep no idle connection', async () => {
    const client = new EngineClient(endpoint);
    try {
      client.keepIdle(0);
      await client.json({ path: '/version' });
      await client.json({ path: '/version' });
      const sockets = new Set(
        engine.seen
          .filter((seen) => seen.url === '/version')
          .slice(-2)
          .map((seen) => seen.socket),
      );
      expect(sockets.size).toBe(2);
    } finally {
      client.close();
    }
  });
});
