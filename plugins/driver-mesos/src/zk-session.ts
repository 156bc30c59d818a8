import zookeeper, { type Client, type ZkError } from 'node-zookeeper-client';
import { anyReachable } from './tcp-probe.js';

const PROBE_INTERVAL_MS = 500;
const UNREACHABLE_AFTER_MS = 5000;
/** A server that accepts TCP but finishes no handshake in this time gets a fresh client. */
const HANDSHAKE_TIMEOUT_MS = 4000;

/**
 * node-zookeeper-client misbehaves while no server answers (its reconnect loop can double up and
 * never finish a handshake, and closing a client mid-connect throws from a socket callback). So
 * a client is created only once a server accepts TCP, and dropped as soon as it disconnects; the
 * session starts over with a fresh client when a server is back.
 */
function forceClose(client: Client): void {
  const internals = client as unknown as { connectionManager?: { socket?: { destroy(): void } } };
  internals.connectionManager?.socket?.destroy();
  client.close();
}

export interface ZkSessionDeps {
  readonly servers: string;
  readonly auth: string | undefined;
  readonly onConnected: (client: Client) => void;
  readonly onDisconnected: (why: string) => void;
}

/**
 * One ZooKeeper session for the driver, kept alive across outages. `onConnected` runs after every
 * (re)connection so watchers can be set again.
 */
export class ZkSession {
  private readonly servers: string;
  private readonly auth: string | undefined;
  private readonly onConnected: (client: Client) => void;
  private readonly onDisconnected: (why: string) => void;

  private client: Client | undefined;
  private closed = false;
  private connected = false;
  private state = 'connecting';
  private probeTimer: NodeJS.Timeout | undefined;
  private unreachableSince: number | undefined;

  constructor({ servers, auth, onConnected, onDisconnected }: ZkSessionDeps) {
    this.servers = servers;
    this.auth = auth;
    this.onConnected = onConnected;
    this.onDisconnected = onDisconnected;
  }

  open(): void {
    if (this.closed || this.probeTimer) return;
    this.probeTimer = setTimeout(() => void this.probe(), 0);
  }

  private async probe(): Promise<void> {
    this.probeTimer = undefined;
    if (this.closed) return;
    if (await anyReachable(this.servers)) {
      this.unreachableSince = undefined;
      this.createClient();
      return;
    }
    this.unreachableSince ??= Date.now();
    if (this.state !== 'unreachable' && Date.now() - this.unreachableSince >= UNREACHABLE_AFTER_MS) {
      this.state = 'unreachable';
      this.onDisconnected(`ZooKeeper ${this.servers} unreachable; still trying`);
    }
    this.probeTimer = setTimeout(() => void this.probe(), PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  private createClient(): void {
    const client = zookeeper.createClient(this.servers, { sessionTimeout: 10_000, spinDelay: 500, retries: 3 });
    this.client = client;
    if (this.auth) client.addAuthInfo('digest', Buffer.from(this.auth));
    client.on('state', (state: { getName(): string }) => {
      if (this.client !== client) return;
      const name = state.getName();
      if (name === 'SYNC_CONNECTED') {
        this.state = 'connected';
        this.connected = true;
        this.onConnected(client);
      } else if (name === 'DISCONNECTED' || name === 'EXPIRED') {
        this.state = name.toLowerCase();
        this.connected = false;
        this.client = undefined;
        forceClose(client);
        this.onDisconnected(`ZooKeeper ${this.servers}: ${name.toLowerCase()}`);
        this.open();
      }
    });
    client.connect();
    const handshake = setTimeout(() => {
      if (this.client !== client || this.connected || this.closed) return;
      this.client = undefined;
      forceClose(client);
      this.open();
    }, HANDSHAKE_TIMEOUT_MS);
    handshake.unref();
  }

  /** connecting, connected, disconnected, expired, unreachable: for `info`. */
  stateName(): string {
    return this.state;
  }

  current(): Client | undefined {
    return this.connected ? this.client : undefined;
  }

  close(): void {
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    if (this.client) forceClose(this.client);
    this.client = undefined;
  }
}

export function isNoNode(error: ZkError | null): boolean {
  return error !== null && error.getCode() === zookeeper.Exception.NO_NODE;
}

export function isNoAuth(error: ZkError | null): boolean {
  return error !== null && error.getCode() === zookeeper.Exception.NO_AUTH;
}

export function zkCall<T>(invoke: (callback: (error: ZkError | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    invoke((error, value) => (error ? reject(error) : resolve(value)));
  });
}
