import zookeeper, { type Client, type ZkError } from 'node-zookeeper-client';

const UNREACHABLE_AFTER_MS = 5000;

/**
 * One ZooKeeper session for the driver: connects (retrying forever in the background), applies
 * digest auth, and re-creates the client when the session expires. `onConnected` runs after every
 * (re)connection so watchers can be set again.
 */
export class ZkSession {
  private client: Client | undefined;
  private closed = false;
  private connected = false;
  private state = 'connecting';

  constructor(
    private readonly servers: string,
    private readonly auth: string | undefined,
    private readonly onConnected: (client: Client) => void,
    private readonly onDisconnected: (why: string) => void,
  ) {}

  open(): void {
    if (this.closed) return;
    const client = zookeeper.createClient(this.servers, { sessionTimeout: 10_000, spinDelay: 500, retries: 1_000_000 });
    this.client = client;
    if (this.auth) client.addAuthInfo('digest', Buffer.from(this.auth));
    client.on('state', (state: { getName(): string }) => {
      if (this.client !== client) return;
      const name = state.getName();
      this.state = name === 'SYNC_CONNECTED' ? 'connected' : name.toLowerCase();
      if (name === 'SYNC_CONNECTED') {
        this.connected = true;
        this.onConnected(client);
      } else if (name === 'DISCONNECTED' || name === 'EXPIRED') {
        this.connected = false;
        this.onDisconnected(`ZooKeeper ${this.servers}: ${name.toLowerCase()}`);
        if (name === 'EXPIRED') {
          this.open();
          client.close();
        }
      }
    });
    client.connect();
    // A client that never completes its first handshake (the server was starting) can hang for
    // good, so an unanswered attempt is replaced by a fresh client.
    const unreachable = setTimeout(() => {
      if (this.client !== client || this.connected || this.closed) return;
      if (this.state !== 'unreachable') this.onDisconnected(`ZooKeeper ${this.servers} unreachable; still trying`);
      this.state = 'unreachable';
      this.open();
      client.close();
    }, UNREACHABLE_AFTER_MS);
    unreachable.unref();
  }

  isConnected(): boolean {
    return this.connected;
  }

  /** connecting, connected, disconnected, expired, ... for `info`. */
  stateName(): string {
    return this.state;
  }

  current(): Client | undefined {
    return this.connected ? this.client : undefined;
  }

  close(): void {
    this.closed = true;
    this.client?.close();
    this.client = undefined;
  }
}

export function isNoNode(error: ZkError | null): boolean {
  return error !== null && error.getCode() === zookeeper.Exception.NO_NODE;
}

export function zkCall<T>(invoke: (callback: (error: ZkError | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    invoke((error, value) => (error ? reject(error) : resolve(value)));
  });
}
