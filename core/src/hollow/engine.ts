import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { isSwarmError } from '@swarm/plugin-sdk';
import { invalidArgument } from './errors.js';
import type { CallDelays } from './call-kinds.js';
import { resolveDelays, type DelayOption } from './default-delays.js';
import { engineIdFor } from './ids.js';
import type { EngineIdentity } from './identity.js';
import type { JsonObject } from './model.js';
import { API_HEADERS } from './render-engine.js';
import type { Reply, Route } from './route-types.js';
import { findRoute, nameOf } from './routes.js';
import { EngineState } from './state.js';
import { API_VERSION } from './templates.js';

export interface HollowEngineOptions {
  name: string;
  /** Loopback address to listen on. */
  host: string;
  /** 0 picks a free port. */
  port?: number;
  ncpu?: number;
  memTotal?: number;
  /** `key=value` engine labels. */
  labels?: readonly string[];
  /** Per-call latency in ms (a number for all calls); defaults to what a real engine here takes. */
  delayMs?: DelayOption;
  /** Images present from the start; `busybox:local` by default, as on the real testbed engines. */
  images?: readonly string[];
  /**
   * Routes tried before the built-in ones: a benchmark adds what hollow engines do not answer
   * (the soak's logs, exec and attach, `test/bench/soak/`) without every engine carrying it.
   */
  routes?: readonly Route[];
}

const DEFAULT_MEMORY = 8 * 1024 ** 3;
const VERSIONED_PATH = /^\/v(\d+)\.(\d+)(\/.*)$/;
const MAX_API = API_VERSION.split('.').map(Number) as [number, number];

function readJson(req: IncomingMessage): Promise<JsonObject> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      if (text.trim() === '') return resolve({});
      try {
        const parsed: unknown = JSON.parse(text);
        resolve(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonObject) : {});
      } catch {
        reject(invalidArgument('invalid JSON in request body'));
      }
    });
  });
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.text !== undefined) {
    res.writeHead(reply.status, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-cache, no-store, must-revalidate',
      Pragma: 'no-cache',
      'Content-Length': Buffer.byteLength(reply.text),
    });
    res.end(reply.text);
  } else if (reply.body === undefined) {
    res.writeHead(reply.status).end();
  } else {
    const payload = `${JSON.stringify(reply.body)}\n`;
    res.writeHead(reply.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
    res.end(payload);
  }
}

/** One imitation Docker engine (API 1.41) on its own address: state in memory, answers after a configurable delay. */
export class HollowEngine {
  readonly state: EngineState;
  readonly delays: CallDelays;
  /** Requests answered, by route (`GET /containers/{id}/json` ...), to see what a client asks for. */
  readonly calls = new Map<string, number>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;

  constructor(private readonly options: HollowEngineOptions) {
    const identity: EngineIdentity = {
      name: options.name,
      id: engineIdFor(`${options.name}@${options.host}`),
      host: options.host,
      port: options.port ?? 0,
      ncpu: options.ncpu ?? 4,
      memTotal: options.memTotal ?? DEFAULT_MEMORY,
      labels: options.labels ?? [],
    };
    this.state = new EngineState(identity, options.images ?? ['busybox:local']);
    this.delays = resolveDelays(options.delayMs);
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0;
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  get name(): string {
    return this.options.name;
  }

  get host(): string {
    return this.options.host;
  }

  get port(): number {
    return this.boundPort;
  }

  /** `host:port` as discovery lists it. */
  get addr(): string {
    return `${this.options.host}:${this.boundPort}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: this.options.host, port: this.options.port ?? 0, backlog: 511 }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.boundPort = (this.server.address() as AddressInfo).port;
    this.state.identity.port = this.boundPort;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for (const [header, value] of Object.entries(API_HEADERS)) res.setHeader(header, value);
    try {
      const url = new URL(req.url ?? '/', 'http://engine');
      let path = url.pathname;
      const versioned = VERSIONED_PATH.exec(path);
      if (versioned) {
        const [major, minor] = [Number(versioned[1]), Number(versioned[2])];
        if (major > MAX_API[0] || (major === MAX_API[0] && minor > MAX_API[1])) {
          throw invalidArgument(`client version ${major}.${minor} is too new. Maximum supported API version is ${API_VERSION}`);
        }
        path = versioned[3] ?? '/';
      }
      const method = req.method ?? 'GET';
      const found = (this.options.routes && findRoute(method, path, this.options.routes)) ?? findRoute(method, path);
      if (found === undefined) return send(res, { status: 404, body: { message: 'page not found' } });
      const routeName = nameOf(found.route);
      this.calls.set(routeName, (this.calls.get(routeName) ?? 0) + 1);
      const body = req.method === 'POST' ? await readJson(req) : {};
      const delay = found.route.kind === undefined ? 0 : this.delays[found.route.kind];
      if (delay > 0) await sleep(delay);
      const reply = found.route.handle({ state: this.state, params: found.params, query: url.searchParams, body, req, res });
      if (reply !== undefined) send(res, reply);
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      const status = isSwarmError(error) ? error.httpStatus : 500;
      send(res, { status, body: { message: error instanceof Error ? error.message : String(error) } });
    }
  }
}
