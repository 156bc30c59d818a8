import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { inspect } from 'node:util';
import type { AuthConfig } from '../../types/docker.js';
import { SdkErrors, asError, isSwarmError, type SwarmError } from '../../errors.js';
import type { EngineEndpoint } from '../../node.js';
import type { CallSlots } from './call-slots.js';
import { readPipelined, type PipelinedResult } from './pipelined-reads.js';

/** Idle kept-alive connections close after this: longer than the usual refresh interval (30-60 s), so refreshes reuse them. */
const IDLE_MS = 90_000;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_SOCKETS = 8;
/** Proxied client calls (logs -f, attach, stats) may all be long: many connections, none of them the calls'. */
const PROXY_MAX_SOCKETS = 256;

export interface EngineClientOptions {
  /** Bound on a call (its whole answer) and on a stream's headers; default 10 s. */
  readonly timeoutMs?: number;
  /**
   * Connections for calls, kept alive and reused most-recent-first (so the ones a quiet engine
   * does not need reach the idle timeout); default 8. More calls wait for one, and the wait counts
   * against their timeout.
   */
  readonly maxSockets?: number;
  /**
   * Shared with other engines' clients: a bound on calls in flight over all of them (streams, which
   * last, are not counted). Without it each client is bounded by its own `maxSockets` only.
   */
  readonly slots?: CallSlots;
}

export type EngineQuery = Readonly<Record<string, string | number | boolean | undefined>>;

export interface EngineCall {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /** The API path without query (`/containers/json`); prefix a version (`/v1.41/...`) to pin one. */
  readonly path: string;
  /** Query parameters; undefined ones are left out. */
  readonly query?: EngineQuery;
  /** A JSON body. */
  readonly body?: unknown;
  /** A raw body (a tar archive), sent as it is. */
  readonly upload?: Readable | Buffer;
  /** Registry credentials, sent as `X-Registry-Auth`. */
  readonly auth?: AuthConfig;
  /** Aborting cancels the call (and a stream's body). */
  readonly signal?: AbortSignal;
  /** On a connection of its own, closed after the answer: probes, and streams that would hold a kept-alive one. */
  readonly separate?: boolean;
  /** This call's bound instead of the client's. */
  readonly timeoutMs?: number;
  /**
   * Not held back by the client's `slots`: a liveness check must be answered in its own time even
   * while the cluster's calls fill every slot, or a busy cluster makes live engines look dead.
   */
  readonly bypassSlots?: boolean;
}

/** A GET answered with JSON, one of several read at once (`EngineClient.readEach`). */
export type EngineRead = Pick<EngineCall, 'path' | 'query'>;

export interface EngineReadOptions {
  /** Bound on each answer, counted from the one before; the client's timeout when not given. */
  readonly timeoutMs?: number;
  /** Aborting cancels the reads not answered yet. */
  readonly signal?: AbortSignal;
}

export interface EngineRequestInit {
  readonly method: string;
  /** The path with its query. */
  readonly path: string;
  readonly headers?: OutgoingHttpHeaders;
}

/** `host:port`, or the socket path: how errors and logs name an engine. */
export function endpointLabel(endpoint: EngineEndpoint): string {
  return endpoint.socketPath ?? `${endpoint.host}:${endpoint.port}`;
}

/** The Host header an engine expects (unix sockets have no host name). */
export function engineHostHeader(endpoint: EngineEndpoint): string {
  return endpoint.socketPath ? 'docker' : `${endpoint.host}:${endpoint.port}`;
}

/** The message of an engine's error answer: `{"message": ...}`, or the text itself. */
export function engineMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // not JSON: a proxy or a web server that is not an engine
  }
  return text.trim();
}

/** A coded error for an engine's non-2xx answer, with the engine's own status and message. */
export function engineAnswerError(status: number, text: string): SwarmError {
  const message = engineMessage(text) || `HTTP ${status}`;
  const entry = status === 404 ? SdkErrors.engineNotFound : status === 409 ? SdkErrors.engineConflict : SdkErrors.engineRefused;
  return entry({ message }, { httpStatus: status, details: { status } });
}

/** Whether the engine was not reached at all (refused, reset, no answer in time), as opposed to an answer. */
export function isEngineUnreachable(error: unknown): boolean {
  return SdkErrors.engineUnreachable.is(error);
}

/** Docker's encoding of registry credentials: base64url of the JSON (padding kept). */
function registryAuthHeader(auth: AuthConfig): string {
  return Buffer.from(JSON.stringify(auth)).toString('base64').replaceAll('+', '-').replaceAll('/', '_');
}

function queryString(query: EngineQuery | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.append(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * Agents show up in debug output and error inspection; formatted in full (their sockets and
 * queues) they cost far more than the call.
 */
function labelled<T extends object>(agent: T, label: string): T {
  Object.defineProperty(agent, inspect.custom, { value: () => `[agent ${label}]` });
  return agent;
}

function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  return promise.then(
    (value) => ({ status: 'fulfilled', value }),
    (reason: unknown) => ({ status: 'rejected', reason }),
  );
}

type Sent = { response: IncomingMessage; done: () => 'timeout' | 'cancelled' | undefined };

function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    // not a SwarmError: the caller's failure() words it as the engine being unreachable
    response.on('aborted', () => reject(asError('the answer was cut off')));
  });
}

/**
 * One Docker engine reached over HTTP, HTTPS (the endpoint's TLS material) or a unix socket.
 * Calls share kept-alive connections; streams and probes go on connections of their own; the
 * API front's proxied requests have a pool of their own. Failures are coded errors
 * (`SdkErrors.engineUnreachable`, `engineCallCancelled`, `engineNotFound`/`engineConflict`/
 * `engineRefused` with the engine's status). One client per engine and deployment: two
 * deployments never share connections.
 */
export class EngineClient {
  readonly label: string;
  private readonly timeoutMs: number;
  private readonly slots: CallSlots | undefined;
  private readonly calls: HttpAgent;
  private separateAgent: HttpAgent | undefined;
  private proxyAgent: HttpAgent | undefined;

  constructor(
    readonly endpoint: EngineEndpoint,
    options: EngineClientOptions = {},
  ) {
    this.label = endpointLabel(endpoint);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.slots = options.slots;
    const maxSockets = options.maxSockets ?? DEFAULT_MAX_SOCKETS;
    this.calls = this.agent('kept-alive', {
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      scheduling: 'lifo',
      timeout: IDLE_MS,
    });
  }

  /** A call answered with JSON (or nothing: `undefined`), bounded by the timeout. */
  async json<T>(call: EngineCall): Promise<T> {
    return (await this.answer<T>(call)).body;
  }

  /** `json`, with the engine's 2xx status (a plugin's `set` answers 204, its `enable` 200). */
  async answer<T>(call: EngineCall): Promise<{ status: number; body: T }> {
    const { response, done } = await this.send(call, true);
    try {
      const status = response.statusCode ?? 200;
      return { status, body: this.jsonAnswer<T>(status, await readText(response), call.path) };
    } catch (error) {
      throw this.failure(error, done(), call.timeoutMs);
    } finally {
      done();
    }
  }

  /**
   * Several GETs answered with JSON, each settled as `json` would settle it, in the order given.
   * They are pipelined on one connection of their own (HTTP/1.1: all written at once, answered in
   * order), which costs both sides far less than a request at a time; they hold one of the client's
   * `slots`. When the engine answers some and then closes the connection, the rest are asked again
   * one by one on the kept-alive connections.
   */
  async readEach<T>(reads: readonly EngineRead[], options: EngineReadOptions = {}): Promise<Array<PromiseSettledResult<T>>> {
    if (reads.length <= 1) return Promise.allSettled(reads.map((read) => this.json<T>({ ...read, ...options })));
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const rejectAll = (reason: unknown) => reads.map((): PromiseSettledResult<T> => ({ status: 'rejected', reason }));
    if (signal?.aborted) return rejectAll(SdkErrors.engineCallCancelled({ engine: this.label }, { cause: signal.reason }));
    const slots = this.slots;
    if (slots !== undefined) {
      try {
        await slots.acquire(signal, this.label);
      } catch (error) {
        return rejectAll(error);
      }
    }
    let results: PipelinedResult[];
    try {
      const link = {
        host: engineHostHeader(this.endpoint),
        dial: () => this.dial(),
        failure: (error: unknown, outcome: 'timeout' | 'cancelled' | undefined, ms: number) => this.failure(error, outcome, ms),
      };
      results = await readPipelined(
        link,
        reads.map((read) => `${read.path}${queryString(read.query)}`),
        timeoutMs,
        signal,
      );
    } finally {
      slots?.release();
    }
    return Promise.all(
      results.map((result, index): Promise<PromiseSettledResult<T>> | PromiseSettledResult<T> => {
        const read = reads[index]!;
        if (result === undefined) return settle(this.json<T>({ ...read, ...options }));
        if (result instanceof Error) return { status: 'rejected', reason: result };
        try {
          return { status: 'fulfilled', value: this.jsonAnswer<T>(result.status, result.body.toString('utf8'), read.path) };
        } catch (reason) {
          return { status: 'rejected', reason };
        }
      }),
    );
  }

  /** An answer's body as `json` returns it: 2xx JSON (empty: `undefined`), anything else the engine's coded error. */
  private jsonAnswer<T>(status: number, text: string, path: string): T {
    if (status < 200 || status >= 300) throw engineAnswerError(status, text);
    if (text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw SdkErrors.engineAnswerNotJson({ engine: this.label, path }, { cause: error });
    }
  }

  /**
   * A streamed answer (events, pull progress) on a connection of its own, resolved once a 2xx head
   * arrives (bounded by the timeout); its body is bounded only by `call.signal`.
   */
  async stream(call: EngineCall): Promise<IncomingMessage> {
    const { response, done } = await this.send({ ...call, separate: true }, false);
    done();
    return response;
  }

  /**
   * A raw request for the API front's proxy: the caller writes the body, reads the answer and
   * handles errors. Kept-alive connections of their own, no timeout (attach and `logs -f` last).
   */
  request(init: EngineRequestInit): ClientRequest {
    this.proxyAgent ??= this.agent('proxied', { keepAlive: true, maxSockets: PROXY_MAX_SOCKETS });
    return this.open(
      { method: init.method, path: init.path, headers: { ...init.headers, host: engineHostHeader(this.endpoint) } },
      this.proxyAgent,
    );
  }

  /** A fresh connection (hijacks, raw pipes); writes wait until it connects (see `connectedEvent`). */
  dial(): Socket {
    const { endpoint } = this;
    if (endpoint.socketPath) return netConnect({ path: endpoint.socketPath, allowHalfOpen: true });
    if (endpoint.protocol === 'https')
      return tlsConnect({ host: endpoint.host, port: endpoint.port, ...endpoint.tls, servername: endpoint.host });
    return netConnect({ host: endpoint.host, port: endpoint.port, allowHalfOpen: true });
  }

  /** The event after which bytes flow on a socket from `dial`. */
  connectedEvent(): 'connect' | 'secureConnect' {
    return this.endpoint.protocol === 'https' && !this.endpoint.socketPath ? 'secureConnect' : 'connect';
  }

  /**
   * At most `count` idle kept-alive call connections (0 to maxSockets); the others close once
   * released. 0: every call connects anew (when open files are scarce).
   */
  keepIdle(count: number): void {
    this.calls.maxFreeSockets = Math.max(0, Math.min(this.calls.maxSockets, Math.floor(count)));
  }

  /** Close every connection (the engine left, or the deployment stops). */
  close(): void {
    this.calls.destroy();
    this.separateAgent?.destroy();
    this.proxyAgent?.destroy();
  }

  private agent(kind: string, options: ConstructorParameters<typeof HttpAgent>[0]): HttpAgent {
    const label = `${kind} ${this.label}`;
    if (this.endpoint.protocol === 'https') return labelled(new HttpsAgent({ ...options, ...this.endpoint.tls }), label);
    return labelled(new HttpAgent(options), label);
  }

  private open(init: EngineRequestInit, agent: HttpAgent): ClientRequest {
    const { endpoint } = this;
    const target = endpoint.socketPath ? { socketPath: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port };
    const options = { method: init.method, path: init.path, headers: init.headers, agent, ...target };
    return endpoint.protocol === 'https' ? httpsRequest(options) : httpRequest(options);
  }

  /**
   * Sends a call and waits for its head: 2xx resolves with the response, anything else rejects with
   * the engine's coded error. `whole` keeps the timeout running until the caller calls `done`
   * (a JSON answer's body counts); otherwise it stops at the head.
   */
  private send(call: EngineCall, whole: boolean): Promise<Sent> {
    const { signal } = call;
    if (signal?.aborted) return Promise.reject(SdkErrors.engineCallCancelled({ engine: this.label }, { cause: signal.reason }));
    const slots = whole && call.bypassSlots !== true ? this.slots : undefined;
    if (slots === undefined) return this.sendNow(call, whole, undefined);
    return slots.acquire(signal, this.label).then(() => this.sendNow(call, whole, () => slots.release()));
  }

  /** `send` once the call may go: `release` (its slot) runs exactly once, when the call is done. */
  private sendNow(call: EngineCall, whole: boolean, release: (() => void) | undefined): Promise<Sent> {
    const { signal } = call;
    const headers: OutgoingHttpHeaders = { host: engineHostHeader(this.endpoint) };
    let payload: string | Buffer | Readable | undefined;
    if (call.upload !== undefined) {
      headers['content-type'] = 'application/tar';
      if (Buffer.isBuffer(call.upload)) headers['content-length'] = call.upload.length;
      payload = call.upload;
    } else if (call.body !== undefined) {
      payload = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    if (call.auth !== undefined) headers['x-registry-auth'] = registryAuthHeader(call.auth);
    const agent = call.separate ? (this.separateAgent ??= this.agent('separate', { keepAlive: false })) : this.calls;
    const request = this.open({ method: call.method ?? 'GET', path: `${call.path}${queryString(call.query)}`, headers }, agent);
    let outcome: 'timeout' | 'cancelled' | undefined;
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    const timer = setTimeout(() => {
      outcome = 'timeout';
      request.destroy();
    }, timeoutMs);
    const cancel = () => {
      outcome ??= 'cancelled';
      request.destroy();
    };
    signal?.addEventListener('abort', cancel, { once: true });
    let finished = false;
    const done = () => {
      if (!finished) {
        finished = true;
        release?.();
        clearTimeout(timer);
        // a stream's body stays cancellable by the signal until it closes
        if (whole) signal?.removeEventListener('abort', cancel);
      }
      return outcome;
    };
    return new Promise((resolve, reject) => {
      request.on('error', (error) => {
        done();
        signal?.removeEventListener('abort', cancel);
        reject(this.failure(error, outcome, timeoutMs));
      });
      request.on('response', (response) => {
        if (!whole) {
          clearTimeout(timer);
          response.once('close', () => signal?.removeEventListener('abort', cancel));
        }
        const status = response.statusCode ?? 500;
        if (status >= 200 && status < 300) {
          resolve({ response, done });
          return;
        }
        readText(response).then(
          (text) => {
            done();
            signal?.removeEventListener('abort', cancel);
            reject(engineAnswerError(status, text));
          },
          (error: unknown) => {
            done();
            signal?.removeEventListener('abort', cancel);
            reject(this.failure(error, outcome, timeoutMs));
          },
        );
      });
      if (payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload)) request.end(payload);
      else {
        payload.on('error', (error) => request.destroy(error));
        payload.pipe(request);
      }
    });
  }

  /** A failure on the way (no answer, a cut answer) as a coded error; coded errors pass through. */
  private failure(error: unknown, outcome: 'timeout' | 'cancelled' | undefined, timeoutMs = this.timeoutMs): SwarmError {
    if (outcome === 'timeout') {
      return SdkErrors.engineUnreachable({ engine: this.label, reason: `no answer within ${timeoutMs / 1000} s` }, { cause: error });
    }
    if (outcome === 'cancelled') return SdkErrors.engineCallCancelled({ engine: this.label }, { cause: error });
    if (isSwarmError(error)) return error;
    return SdkErrors.engineUnreachable(
      { engine: this.label, reason: error instanceof Error ? error.message : String(error) },
      { cause: error },
    );
  }
}
