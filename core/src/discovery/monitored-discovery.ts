import type { Discovery } from '@swarm/plugin-sdk';
import type { DiscoveryStatus } from '@swarm/plugin-sdk/web';
import { parseDiscoveryUri } from './discovery-uri.js';

/** `zk://user:secret@h1/x` → `zk://***@h1/x`: credentials never leave the manager. */
export function redactDiscoveryUri(uri: string): string {
  return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/, '$1***@');
}

export interface MonitoredDiscoveryDeps {
  readonly inner: Discovery;
  readonly uri: string;
  readonly heartbeatMs: number;
  readonly now?: () => number;
}

/**
 * A discovery with what its watches reported remembered: the last set's size and time, and the
 * last error, for the web view's health panel. Everything else passes straight through.
 */
export class MonitoredDiscovery implements Discovery {
  private readonly inner: Discovery;
  private readonly uri: string;
  private readonly heartbeatMs: number;
  private readonly now: () => number;

  /** Whether the driver asked for the entries at all: Kubernetes and Mesos find their nodes themselves. */
  private watched = false;
  private entries: number | undefined;
  private updatedAt: number | undefined;
  private lastError: { message: string; at: number } | undefined;
  readonly leadership: Discovery['leadership'];

  /**
   * `heartbeatMs`: how often the backend retries. An error older than a few heartbeats with no
   * newer one means the backend recovered, even if the set it delivers did not change since.
   */
  constructor({ inner, uri, heartbeatMs, now = Date.now }: MonitoredDiscoveryDeps) {
    this.inner = inner;
    this.uri = uri;
    this.heartbeatMs = heartbeatMs;
    this.now = now;
    this.leadership = inner.leadership?.bind(inner);
    this.register = inner.register?.bind(inner);
  }

  watch(...[onEntries, onError]: Parameters<Discovery['watch']>): ReturnType<Discovery['watch']> {
    this.watched = true;
    return this.inner.watch(
      (entries) => {
        this.entries = entries.length;
        this.updatedAt = this.now();
        onEntries(entries);
      },
      (error) => {
        this.lastError = { message: error.message, at: this.now() };
        onError(error);
      },
    );
  }

  /** Offered when the backend offers it (`swarm join` refuses a backend without it). */
  readonly register?: (addr: string) => Promise<void>;

  close(): Promise<void> {
    return this.inner.close();
  }

  status(): DiscoveryStatus {
    const error = this.lastError;
    const failing =
      error !== undefined && (this.updatedAt === undefined || error.at >= this.updatedAt) && this.now() - error.at < 3 * this.heartbeatMs;
    return {
      ...discoveryIdentity(this.uri),
      // opened for the leadership only (-c kubernetes --replication): the driver reads the cluster itself
      state: !this.watched ? 'driver' : failing ? 'failing' : this.updatedAt === undefined ? 'waiting' : 'ok',
      entries: this.entries,
      updatedAt: this.updatedAt,
      lastError: this.lastError?.message,
      lastErrorAt: this.lastError?.at,
    };
  }
}

/** The URI (redacted) and scheme of a discovery, for status reports. */
export function discoveryIdentity(uri: string): { uri: string; scheme: string } {
  let scheme = '';
  try {
    scheme = parseDiscoveryUri(uri).scheme;
  } catch {
    // An invalid URI fails the deployment elsewhere; the status still shows it as given.
  }
  return { uri: redactDiscoveryUri(uri), scheme };
}
