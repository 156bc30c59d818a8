import { deepStrictEqual, fail, ok, strictEqual } from 'node:assert/strict';
import type { Discovery, DiscoveryBackend, DiscoveryEntry, DiscoveryOptions } from '../discovery.js';
import { ErrorCodes, SdkErrors, isSwarmError } from '../errors.js';
import { runAsyncChecks, type Tester } from './checks.js';

export interface DiscoveryConformanceOptions {
  /** A URI the backend opens (everything after `scheme://`), whose engines the checks may read. */
  readonly uri: string;
  /** The entries `uri` must yield, in any order; without it any well-formed set passes. */
  readonly entries?: readonly DiscoveryEntry[];
  /** Malformed URIs the backend must refuse at `open` with a DISCOVERY_INVALID error. */
  readonly invalidUris?: readonly string[];
  /** Given to `open`; default a 1-second heartbeat and TTL 3 seconds, no options. */
  readonly options?: DiscoveryOptions;
  /** Whether `register` may be called on `uri` (it writes to the store). Default true. */
  readonly register?: boolean;
  /** How long to wait for the first entries. Default 5,000 ms. */
  readonly timeoutMs?: number;
}

const DEFAULT_OPTIONS: DiscoveryOptions = { heartbeat: 1, ttl: 3, options: {} };

function assertEntry(entry: DiscoveryEntry): void {
  ok(typeof entry.host === 'string' && entry.host.length > 0, `an entry has a host: ${JSON.stringify(entry)}`);
  ok(Number.isInteger(entry.port) && entry.port > 0 && entry.port < 65536, `an entry has a port 1-65535: ${JSON.stringify(entry)}`);
  ok(typeof entry.addr === 'string' && entry.addr.endsWith(`:${entry.port}`), `addr is host:port: ${JSON.stringify(entry)}`);
}

const sorted = (entries: readonly DiscoveryEntry[]) =>
  [...entries].map(({ host, port, addr }) => ({ host, port, addr })).sort((a, b) => a.addr.localeCompare(b.addr));

/** Opens `uri`, waits for the first entries, and always closes what it opened. */
async function withFirstEntries<T>(
  backend: DiscoveryBackend,
  options: DiscoveryConformanceOptions,
  use: (entries: readonly DiscoveryEntry[], discovery: Discovery) => Promise<T> | T,
): Promise<T> {
  const discovery = backend.open(options.uri, options.options ?? DEFAULT_OPTIONS);
  const errors: Error[] = [];
  let watcher: { stop(): void } | undefined;
  try {
    const entries = await new Promise<readonly DiscoveryEntry[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        const why = errors.length > 0 ? `; onError said: ${errors.map((error) => error.message).join('; ')}` : '';
        reject(SdkErrors.conformanceFailed({ check: 'watch', reason: `no entries within ${options.timeoutMs ?? 5000} ms${why}` }));
      }, options.timeoutMs ?? 5000);
      watcher = discovery.watch(
        (found) => {
          clearTimeout(timer);
          resolve(found);
        },
        (error) => errors.push(error),
      );
    });
    return await use(entries, discovery);
  } finally {
    watcher?.stop();
    await discovery.close();
  }
}

/**
 * Checks every discovery backend must pass: a URI scheme, coded refusals of malformed URIs at
 * `open`, well-formed entries delivered at least once, silence after `stop`, a `register` that
 * that, when offered, works or says NOT_SUPPORTED, and a `close` that may be called twice. With a tester (vitest's
 * `{ it }`) one test per check; without, they run now and the promise rejects on the first failure.
 */
export function discoveryConformance(backend: DiscoveryBackend, options: DiscoveryConformanceOptions, tester?: Tester): Promise<void> {
  const scheme = backend.scheme;
  return runAsyncChecks(
    [
      {
        name: `${scheme}: has a URI scheme`,
        run: async () => ok(typeof scheme === 'string' && /^[a-z][a-z0-9+.-]*$/.test(scheme), `scheme ${JSON.stringify(scheme)}`),
      },
      {
        name: `${scheme}: refuses malformed URIs at open with DISCOVERY_INVALID`,
        run: async () => {
          for (const uri of options.invalidUris ?? []) {
            try {
              const opened = backend.open(uri, options.options ?? DEFAULT_OPTIONS);
              await opened.close();
            } catch (error) {
              ok(
                isSwarmError(error, ErrorCodes.DISCOVERY_INVALID),
                `${JSON.stringify(uri)}: ${String(error)} is not a DISCOVERY_INVALID SwarmError`,
              );
              ok((error as Error).message.length > 0, `${JSON.stringify(uri)}: the error says what is wrong`);
              continue;
            }
            fail(`${scheme}://${uri} was accepted`);
          }
        },
      },
      {
        name: `${scheme}: watch delivers well-formed entries at least once`,
        run: () =>
          withFirstEntries(backend, options, (entries) => {
            ok(Array.isArray(entries), 'entries is an array');
            for (const entry of entries) assertEntry(entry);
            strictEqual(new Set(entries.map((entry) => entry.addr)).size, entries.length, 'no address twice');
            if (options.entries) deepStrictEqual(sorted(entries), sorted(options.entries));
          }),
      },
      {
        name: `${scheme}: calls nothing after stop`,
        run: async () => {
          const discovery = backend.open(options.uri, options.options ?? DEFAULT_OPTIONS);
          let calls = 0;
          let first: () => void = () => undefined;
          const delivered = new Promise<void>((resolve) => (first = resolve));
          const watcher = discovery.watch(
            () => {
              calls++;
              first();
            },
            () => calls++,
          );
          try {
            await delivered;
            watcher.stop();
            const after = calls;
            const heartbeat = (options.options ?? DEFAULT_OPTIONS).heartbeat;
            await new Promise((resolve) => setTimeout(resolve, Math.min(heartbeat * 1500, 3000)));
            strictEqual(calls, after, 'onEntries or onError was called after stop()');
          } finally {
            watcher.stop();
            await discovery.close();
          }
        },
      },
      {
        name: `${scheme}: register, when offered, works or refuses with NOT_SUPPORTED`,
        run: async () => {
          if (options.register === false) return;
          const discovery = backend.open(options.uri, options.options ?? DEFAULT_OPTIONS);
          try {
            ok(discovery.register === undefined || typeof discovery.register === 'function', 'register is a function or absent');
            await discovery.register?.('127.0.0.1:2375');
          } catch (error) {
            ok(isSwarmError(error, ErrorCodes.NOT_SUPPORTED), `register failed with ${String(error)}, not a NOT_SUPPORTED SwarmError`);
          } finally {
            await discovery.close();
          }
        },
      },
      {
        name: `${scheme}: close resolves, twice`,
        run: async () => {
          const discovery = backend.open(options.uri, options.options ?? DEFAULT_OPTIONS);
          await discovery.close();
          await discovery.close();
        },
      },
      {
        name: `${scheme}: leadership, when offered, is a function`,
        run: async () => {
          const discovery = backend.open(options.uri, options.options ?? DEFAULT_OPTIONS);
          try {
            ok(discovery.leadership === undefined || typeof discovery.leadership === 'function');
          } finally {
            await discovery.close();
          }
        },
      },
    ],
    tester,
  );
}
