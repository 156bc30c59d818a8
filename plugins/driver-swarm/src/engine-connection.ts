import { Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { inspect } from 'node:util';
import type Dockerode from 'dockerode';
import { ErrorCodes, SwarmError, type AuthConfig, type EngineEndpoint } from '@swarm/plugin-sdk';
import { cancelledError, connectionError, endpointLabel, engineCallError } from './engine-http.js';

/** Idle kept-alive connections close after this: longer than the default refresh interval (30-60 s) so refreshes reuse them. */
const IDLE_MS = 90_000;
/**
 * Connections per engine: a full refresh inspects every container at once, the rest wait for a
 * connection (the wait counts against their timeout). All of them stay open when idle (the agent
 * reuses the most recent first, so the ones a quiet engine does not need reach the idle timeout),
 * unless the cluster asks for fewer (keepIdle): thousands of engines would otherwise hold more
 * sockets than the process may open.
 */
const MAX_SOCKETS = 8;

type DialOptions = Parameters<Dockerode['modem']['dial']>[0];

const require = createRequire(import.meta.url);
let dockerodeClass: typeof Dockerode | undefined;

/** dockerode (with the ssh2 and gRPC it loads, ~85 ms) loads with the first engine, not with the plugin. */
function loadDockerode(): typeof Dockerode {
  return (dockerodeClass ??= require('dockerode') as typeof Dockerode);
}

export interface EngineCall {
  method?: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** A raw body (tar archive) sent as it is. */
  upload?: Readable | Buffer;
  auth?: AuthConfig;
  /** Cancels the call (and a stream's body) when it aborts. */
  signal?: AbortSignal;
  /** On a new connection closed after the answer: probes, and streams that would hold a kept-alive one. */
  separate?: boolean;
}

/** Every 2xx is an answer; docker-modem turns any other status into an error carrying the engine's text. */
const SUCCESS: DialOptions['statusCodes'] = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [200 + index, true]));

function definedOnly(query: EngineCall['query']): Record<string, string | number | boolean> {
  const kept: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) kept[key] = value;
  return kept;
}

/**
 * docker-modem formats every request's options for its debug log even when that log is off; an
 * agent formatted in full (its sockets and their state) cost ~0.4 ms a call, 25 times the rest.
 */
function cheapToInspect<T extends object>(agent: T, label: string): T {
  Object.defineProperty(agent, inspect.custom, { value: () => `[agent ${label}]` });
  return agent;
}

function createAgent(endpoint: EngineEndpoint, keepAlive: boolean): HttpAgent {
  const options = keepAlive
    ? { keepAlive, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, scheduling: 'lifo' as const, timeout: IDLE_MS }
    : { keepAlive };
  const label = `${keepAlive ? 'kept-alive' : 'separate'} ${endpointLabel(endpoint)}`;
  if (endpoint.protocol === 'https') return cheapToInspect(new HttpsAgent({ ...options, ...endpoint.tls }), label);
  return cheapToInspect(new HttpAgent(options), label);
}

/** What docker-modem's constructor reads for its defaults: they describe this shell's own Docker client, not the engines. */
const CLIENT_ENVIRONMENT = ['DOCKER_HOST', 'DOCKER_TLS_VERIFY', 'DOCKER_CERT_PATH', 'DOCKER_CLIENT_TIMEOUT', 'DOCKER_PATH_PREFIX'];

/**
 * With DOCKER_HOST set, docker-modem reads the DOCKER_CERT_PATH files for every engine (and
 * throws when they are not PEM), so the variables are hidden while it is built (synchronously).
 */
function withoutClientEnvironment<T>(build: () => T): T {
  const saved = CLIENT_ENVIRONMENT.map((name) => [name, process.env[name]] as const);
  for (const [name] of saved) delete process.env[name];
  try {
    return build();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}

function createDocker(endpoint: EngineEndpoint, agent: HttpAgent): Dockerode {
  const place = endpoint.socketPath ? { socketPath: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port };
  const options: Dockerode.DockerOptions & { agent: HttpAgent } = { ...place, protocol: endpoint.protocol, agent };
  const DockerClient = loadDockerode();
  return withoutClientEnvironment(() => new DockerClient(options));
}

/**
 * One Docker engine reached with dockerode: calls share one keep-alive agent (connections are
 * reused instead of dialled per call); probes and long-lived streams go on connections of their
 * own. Every call must answer within `timeoutMs` (a JSON call its whole body, a stream its headers).
 */
export class EngineConnection {
  private readonly keptAlive: HttpAgent;
  private readonly separateAgent: HttpAgent;
  private readonly docker: Dockerode;
  private readonly separateDocker: Dockerode;

  constructor(
    readonly endpoint: EngineEndpoint,
    private readonly timeoutMs: number,
  ) {
    this.keptAlive = createAgent(endpoint, true);
    this.separateAgent = createAgent(endpoint, false);
    this.docker = createDocker(endpoint, this.keptAlive);
    this.separateDocker = createDocker(endpoint, this.separateAgent);
  }

  /** A call answered with JSON (or nothing). */
  async json<T>(call: EngineCall): Promise<T> {
    const answer = await this.dial(call, false);
    if (!Buffer.isBuffer(answer)) return answer as T;
    // docker-modem hands over what is not JSON as bytes: an empty answer (204), or not an engine
    const text = answer.toString('utf8');
    if (text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new SwarmError(
        ErrorCodes.ENGINE_ERROR,
        `${endpointLabel(this.endpoint)} answered ${call.path} with something that is not JSON`,
        { cause: error },
      );
    }
  }

  /** A streamed answer, resolved once its headers arrive; its body is bounded only by `call.signal`. */
  stream(call: EngineCall): Promise<IncomingMessage> {
    return this.dial(call, true) as Promise<IncomingMessage>;
  }

  /** At most `count` idle kept-alive connections (1 to 8); the others close once released. */
  keepIdle(count: number): void {
    this.keptAlive.maxFreeSockets = Math.max(1, Math.min(MAX_SOCKETS, Math.floor(count)));
  }

  /** Close the kept-alive connections (the engine left the cluster). */
  close(): void {
    this.keptAlive.destroy();
    this.separateAgent.destroy();
  }

  private dial(call: EngineCall, isStream: boolean): Promise<unknown> {
    const { signal } = call;
    if (signal?.aborted) return Promise.reject(cancelledError(this.endpoint, signal.reason));
    const controller = new AbortController();
    let outcome: 'timeout' | 'cancelled' | undefined;
    const timer = setTimeout(() => {
      outcome = 'timeout';
      controller.abort();
    }, this.timeoutMs);
    const cancel = () => {
      outcome ??= 'cancelled';
      controller.abort();
    };
    signal?.addEventListener('abort', cancel, { once: true });
    const release = () => signal?.removeEventListener('abort', cancel);
    const query = definedOnly(call.query);
    const options: DialOptions = {
      method: call.method ?? 'GET',
      // docker-modem appends `_query` only to a path ending in `?`
      path: Object.keys(query).length > 0 ? `${call.path}?` : call.path,
      // a POST without a body still needs `_body`: docker-modem would send the options themselves; `{}` means none
      options: { _query: query, _body: call.body ?? {} },
      allowEmpty: call.body !== undefined,
      ...(call.upload === undefined ? {} : { file: call.upload }),
      ...(call.auth === undefined ? {} : { authconfig: call.auth }),
      abortSignal: controller.signal,
      isStream,
      statusCodes: SUCCESS,
    };
    const docker = call.separate || isStream ? this.separateDocker : this.docker;
    return new Promise((resolve, reject) => {
      docker.modem.dial(options, (error, answer) => {
        clearTimeout(timer);
        if (error) {
          release();
          if (outcome === 'timeout') reject(connectionError(this.endpoint, `no answer within ${this.timeoutMs / 1000} s`, error));
          else if (outcome === 'cancelled') reject(cancelledError(this.endpoint, error));
          else reject(engineCallError(this.endpoint, error));
          return;
        }
        if (isStream) (answer as IncomingMessage).once('close', release);
        else release();
        resolve(answer);
      });
    });
  }
}
