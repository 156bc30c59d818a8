import type { LeaderElection } from './leadership.js';

/** One engine address found by discovery. */
export interface DiscoveryEntry {
  readonly host: string;
  readonly port: number;
  /** `host:port`. */
  readonly addr: string;
}

export interface DiscoveryOptions {
  /** Seconds between refreshes (Swarm classic's --heartbeat). */
  readonly heartbeat: number;
  /** Seconds an entry lives without a refresh (join's --ttl). */
  readonly ttl: number;
  /** `--discovery-opt key=value` pairs (kv.path, kv.cacertfile, ...). */
  readonly options: Readonly<Record<string, string>>;
}

export interface DiscoveryWatcher {
  stop(): void;
}

/** A discovery source opened for one URI. */
export interface Discovery {
  /**
   * Calls `onEntries` with the full current set every time it may have changed (at least once),
   * and `onError` for failures it keeps retrying through. Must not throw after returning.
   */
  watch(onEntries: (entries: readonly DiscoveryEntry[]) => void, onError: (error: Error) => void): DiscoveryWatcher;
  /**
   * Register an engine address (`swarm join`). Leave it out when the backend cannot (its engines
   * are found some other way): `swarm join` then refuses with a coded error naming the scheme.
   */
  register?(addr: string): Promise<void>;
  /**
   * Leader election under this discovery's store and prefix (`key` is relative to the prefix,
   * usually LEADER_ELECTION_PATH). Only key-value backends (zk, etcd) offer it.
   */
  leadership?(key: string, ttlSeconds: number): LeaderElection;
  close(): Promise<void>;
}

/**
 * A discovery backend plugin: registered under `Tokens.DiscoveryBackend` with the URI scheme as
 * its name (`nodes`, `file`, `zk`, `etcd`, ...).
 */
export interface DiscoveryBackend {
  readonly scheme: string;
  /** `uri` is everything after `scheme://`. Throw DISCOVERY_INVALID with a clear text for malformed input. */
  open(uri: string, options: DiscoveryOptions): Discovery;
}
