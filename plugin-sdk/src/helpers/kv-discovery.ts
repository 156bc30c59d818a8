import { readFileSync } from 'node:fs';
import type { DiscoveryEntry, DiscoveryOptions } from '../discovery.js';
import { parseDiscoveryEntry } from './discovery-addresses.js';
import { SdkErrors, asError } from '../errors.js';

/**
 * Shared by the key-value discovery backends (zk, etcd): Swarm classic's store layout
 * (`<prefix>/docker/swarm/nodes/<ip:port>` holding `ip:port`) and its `kv.*` discovery options.
 */
export const KV_NODES_PATH = 'docker/swarm/nodes';

export const KvDiscoveryOptions = {
  path: 'kv.path',
  caCertFile: 'kv.cacertfile',
  certFile: 'kv.certfile',
  keyFile: 'kv.keyfile',
} as const;

export interface KvTlsMaterial {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface KvDiscoveryTarget {
  /** `host:port` of every store server, in the order given. */
  readonly hosts: readonly string[];
  /** The path after the hosts, without surrounding slashes ('' when none). */
  readonly prefix: string;
  /** Where engines register: prefix + (kv.path or docker/swarm/nodes), without surrounding slashes. */
  readonly nodesPath: string;
  readonly tls?: KvTlsMaterial;
}

/** Joins key segments with `/`, dropping empty ones and stray slashes. */
export function joinKeyPath(...segments: readonly string[]): string {
  return segments
    .flatMap((segment) => segment.split('/'))
    .filter((part) => part !== '')
    .join('/');
}

/**
 * The valid, distinct entries among store values, sorted by address; each invalid one goes to
 * `onInvalid`. Empty values (a key written without an address) are skipped, as Swarm classic does.
 */
export function collectEntries(values: Iterable<string>, onInvalid: (error: Error) => void): DiscoveryEntry[] {
  const byAddr = new Map<string, DiscoveryEntry>();
  for (const value of values) {
    const addr = value.trim();
    if (addr === '') continue;
    try {
      const entry = parseDiscoveryEntry(addr);
      byAddr.set(entry.addr, entry);
    } catch (error) {
      onInvalid(error as Error);
    }
  }
  return [...byAddr.values()].sort((a, b) => a.addr.localeCompare(b.addr));
}

/** Forwards an entry set only when it differs from the last one forwarded (the first always goes). */
export class EntrySetDeduper {
  private last: string | undefined;

  constructor(private readonly forward: (entries: readonly DiscoveryEntry[]) => void) {}

  offer(entries: readonly DiscoveryEntry[]): void {
    const signature = entries.map((entry) => entry.addr).join(',');
    if (signature === this.last) return;
    this.last = signature;
    this.forward(entries);
  }
}

function readPem(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw SdkErrors.kvTlsUnreadable({ option, file, reason: (error as Error).message }, { cause: error });
  }
}

/** TLS material from `kv.cacertfile`, `kv.certfile` and `kv.keyfile` (all three, or none). */
function readKvTls(options: Readonly<Record<string, string>>): KvTlsMaterial | undefined {
  const files = [KvDiscoveryOptions.caCertFile, KvDiscoveryOptions.certFile, KvDiscoveryOptions.keyFile].map(
    (option) => options[option] ?? '',
  );
  const given = files.filter((file) => file !== '').length;
  if (given === 0) return undefined;
  if (given < files.length) {
    throw SdkErrors.kvTlsIncomplete();
  }
  return {
    ca: readPem(KvDiscoveryOptions.caCertFile, files[0]!),
    cert: readPem(KvDiscoveryOptions.certFile, files[1]!),
    key: readPem(KvDiscoveryOptions.keyFile, files[2]!),
  };
}

/**
 * Parses `h1:p,h2:p/prefix` (what follows `zk://` or `etcd://`). Hosts without a port get
 * `defaultPort`. Throws DISCOVERY_INVALID with a text naming the scheme.
 */
export function parseKvDiscovery(scheme: string, uri: string, options: DiscoveryOptions, defaultPort: number): KvDiscoveryTarget {
  const slash = uri.indexOf('/');
  const hostList = slash === -1 ? uri : uri.slice(0, slash);
  const prefix = slash === -1 ? '' : joinKeyPath(uri.slice(slash + 1));
  const hosts = hostList
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  if (hosts.length === 0) throw SdkErrors.kvStoreMissing({ scheme });
  const normalized = hosts.map((host) => {
    const withPort = host.includes(':') ? host : `${host}:${defaultPort}`;
    parseStoreAddress(scheme, withPort);
    return withPort;
  });
  const nodesPath = joinKeyPath(prefix, options.options[KvDiscoveryOptions.path] || KV_NODES_PATH);
  const tls = readKvTls(options.options);
  return tls === undefined ? { hosts: normalized, prefix, nodesPath } : { hosts: normalized, prefix, nodesPath, tls };
}

function parseStoreAddress(scheme: string, host: string): void {
  try {
    parseDiscoveryEntry(host);
  } catch (error) {
    throw SdkErrors.kvStoreAddressInvalid({ scheme, host }, { cause: error });
  }
}

/** Delay before retry number `attempt` (0-based) against an unreachable store: 0.5 s doubling up to 8 s. */
export function storeRetryDelayMs(attempt: number): number {
  return Math.min(500 * 2 ** Math.max(0, attempt), 8000);
}

/**
 * Runs an async store task one at a time: a trigger while it runs queues exactly one rerun, and
 * a failure is reported and retried with storeRetryDelayMs backoff until the next success.
 */
export class SerialRetryTask {
  private running = false;
  private rerun = false;
  private stopped = false;
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly onFailure: (error: Error) => void,
  ) {}

  trigger(): void {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = true;
    this.task()
      .then(
        () => {
          this.failures = 0;
        },
        (error: unknown) => {
          if (this.stopped) return;
          this.onFailure(asError(error));
          this.retryTimer = setTimeout(() => this.trigger(), storeRetryDelayMs(this.failures++));
        },
      )
      .finally(() => {
        this.running = false;
        if (this.rerun) {
          this.rerun = false;
          this.trigger();
        }
      });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }
}
