import zookeeper, { type Client, type ZkException } from 'node-zookeeper-client';
import type { SwarmError } from '@swarm/plugin-sdk';
import type { ZkEndpoint } from './zk-endpoint.js';
import { ZkErrors } from './errors.js';

export interface SessionListener {
  /** Connected; `fresh` when this is a new session (the ephemeral nodes of the previous one are gone). */
  connected?(fresh: boolean): void;
  disconnected?(): void;
}

/** How often an unreachable store is reported through onError while the client keeps retrying. */
const UNREACHABLE_REPORT_MS = 5000;

export const ZkCodes = zookeeper.Exception;
export const ZkCreateMode = zookeeper.CreateMode;

export function zkCode(error: unknown): number | undefined {
  const candidate = error as Partial<ZkException> | undefined;
  return typeof candidate?.getCode === 'function' ? candidate.getCode() : undefined;
}

export interface ZkSessionDeps {
  readonly endpoint: ZkEndpoint;
  readonly sessionTimeoutMs: number;
  readonly onError: (error: Error) => void;
}

/**
 * One ZooKeeper session that outlives its clients: when the session expires, a new client (and
 * session) replaces it, and listeners hear `connected(true)` so they can re-create ephemeral
 * nodes and watches.
 */
export class ZkSession {
  private readonly endpoint: ZkEndpoint;
  private readonly sessionTimeoutMs: number;
  private readonly onError: (error: Error) => void;

  private client: Client | undefined;
  private readonly connection: Promise<string>;
  private readonly unsubscribe: () => void;
  private lastTransportReport = '';
  private sessionId: Buffer | undefined;
  private isConnected = false;
  private closed = false;
  private readonly listeners = new Set<SessionListener>();
  private readonly waiters = new Set<{ resolve: (client: Client) => void; reject: (error: Error) => void }>();
  /** Calls sent and not answered yet, with the client each went to. */
  private readonly openCalls = new Set<{ client: Client; fail: (error: Error) => void }>();
  private unreachableTimer: NodeJS.Timeout | undefined;
  private disconnectedSince = Date.now();

  constructor({ endpoint, sessionTimeoutMs, onError }: ZkSessionDeps) {
    this.endpoint = endpoint;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.onError = onError;
    this.unsubscribe = endpoint.onFailure((error) => this.onTransportFailure(error));
    this.connection = endpoint.connectionString();
    this.start();
  }

  /** The session timeout this session asks the server for. */
  get requestedTimeoutMs(): number {
    return this.sessionTimeoutMs;
  }

  get connected(): boolean {
    return this.isConnected;
  }

  /** The session timeout the server granted (the requested one until connected). */
  timeoutMs(): number {
    return this.isConnected && this.client !== undefined ? this.client.getSessionTimeout() : this.sessionTimeoutMs;
  }

  /** The id of the current session (8 bytes), once connected. */
  id(): Buffer | undefined {
    return this.sessionId;
  }

  listen(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The connected client, or DISCOVERY_FAILED when the store stays unreachable for `timeoutMs`. */
  ready(timeoutMs: number): Promise<Client> {
    if (this.closed) return Promise.reject(this.failure('the ZooKeeper session is closed'));
    if (this.isConnected && this.client !== undefined) return Promise.resolve(this.client);
    return new Promise<Client>((resolve, reject) => {
      const waiter = {
        resolve: (client: Client) => {
          clearTimeout(timer);
          resolve(client);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(this.unreachable());
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /**
   * Runs one client call as a promise (the connection must be up, or it waits up to `timeoutMs`).
   * node-zookeeper-client keeps a request taken while its connection is down in a queue; when the
   * session then expires it neither sends nor fails it, and a client closed while still connecting
   * fails it only later, as a lost connection. So the calls still open when their client is let go
   * fail then, saying why: unanswered, they would hang their caller for good (a `swarm join` would
   * stop heartbeating).
   */
  async call<T>(timeoutMs: number, operation: (client: Client, done: (error: ZkException | null, result: T) => void) => void): Promise<T> {
    const client = await this.ready(timeoutMs);
    return new Promise<T>((resolve, reject) => {
      const open = { client, fail: (error: Error) => settle(error, undefined) };
      const settle = (error: Error | null, result: T | undefined) => {
        if (!this.openCalls.delete(open)) return;
        if (error) reject(error);
        else resolve(result as T);
      };
      this.openCalls.add(open);
      operation(client, settle);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const wasConnected = this.isConnected;
    this.isConnected = false;
    clearInterval(this.unreachableTimer);
    for (const waiter of this.waiters) waiter.reject(this.failure('the ZooKeeper session is closed'));
    this.waiters.clear();
    this.listeners.clear();
    this.unsubscribe();
    if (this.client !== undefined) {
      this.failOpenCalls(this.client, 'the ZooKeeper session is closed');
      this.closeClient(this.client, wasConnected);
    }
  }

  private start(): void {
    this.armUnreachableReports();
    this.connection.then(
      (connection) => {
        if (!this.closed) this.client = this.open(connection);
      },
      (error: unknown) =>
        this.onError(this.failure(`cannot set up the connection to ${this.endpoint.description}: ${(error as Error).message}`)),
    );
  }

  private open(connection: string): Client {
    const client = zookeeper.createClient(connection, { sessionTimeout: this.sessionTimeoutMs, spinDelay: 500, retries: 0 });
    client.on('connected', () => {
      if (client === this.client) this.onConnected(client);
    });
    client.on('disconnected', () => {
      if (client === this.client) this.onDisconnected('lost the connection to ZooKeeper, reconnecting');
    });
    client.on('expired', () => {
      if (client === this.client) this.onExpired(client);
    });
    client.connect();
    return client;
  }

  private onConnected(client: Client): void {
    if (this.closed) return;
    const id = client.getSessionId();
    const fresh = this.sessionId === undefined || !id.equals(this.sessionId);
    this.sessionId = id;
    this.isConnected = true;
    clearInterval(this.unreachableTimer);
    this.unreachableTimer = undefined;
    for (const waiter of this.waiters) waiter.resolve(client);
    this.waiters.clear();
    for (const listener of [...this.listeners]) listener.connected?.(fresh);
  }

  private onDisconnected(message: string): void {
    if (!this.isConnected || this.closed) return;
    this.isConnected = false;
    this.disconnectedSince = Date.now();
    this.onError(this.failure(message));
    for (const listener of [...this.listeners]) listener.disconnected?.();
    this.armUnreachableReports();
  }

  private onExpired(client: Client): void {
    this.onDisconnected('the ZooKeeper session expired, opening a new one');
    this.reopen(client);
  }

  /**
   * node-zookeeper-client misreads a connect answer that arrives after close() (it throws from its
   * socket handler), so a client that is still connecting is closed once connected, or after a bound.
   */
  private closeClient(client: Client, connected: boolean): void {
    if (connected) {
      client.close();
      return;
    }
    const timer = setTimeout(() => client.close(), this.sessionTimeoutMs);
    timer.unref();
    client.once('connected', () => {
      clearTimeout(timer);
      client.close();
    });
  }

  private reopen(client: Client): void {
    this.failOpenCalls(client, 'the ZooKeeper session was lost before the call was answered');
    this.closeClient(client, false);
    if (this.closed) return;
    this.client = undefined;
    this.start();
  }

  private failOpenCalls(client: Client, reason: string): void {
    for (const call of [...this.openCalls]) if (call.client === client) call.fail(this.failure(reason));
  }

  /** A failed connection attempt the transport could explain, reported once per distinct cause and period. */
  private onTransportFailure(error: Error): void {
    if (this.isConnected || this.closed) return;
    const now = Date.now();
    const key = `${Math.floor(now / UNREACHABLE_REPORT_MS)}:${error.message}`;
    if (key === this.lastTransportReport) return;
    this.lastTransportReport = key;
    this.onError(error);
  }

  private armUnreachableReports(): void {
    if (this.unreachableTimer !== undefined) return;
    this.unreachableTimer = setInterval(() => {
      if (this.isConnected || this.closed) return;
      this.onError(this.unreachable());
      // A client can hang in its connect handshake against a server that is still starting;
      // past the session timeout the session is lost anyway, so start over with a new client.
      if (this.client !== undefined && Date.now() - this.disconnectedSince > this.sessionTimeoutMs + UNREACHABLE_REPORT_MS) {
        this.disconnectedSince = Date.now();
        this.reopen(this.client);
      }
    }, UNREACHABLE_REPORT_MS);
    this.unreachableTimer.unref();
  }

  private unreachable(): SwarmError {
    return this.failure(`cannot reach ZooKeeper at ${this.endpoint.description}, retrying`);
  }

  private failure(message: string): SwarmError {
    return ZkErrors.storeFailure({ reason: message });
  }
}
