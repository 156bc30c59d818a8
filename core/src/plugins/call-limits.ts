/** The plugin kinds whose calls the host waits for (a promise): each has a time limit. */
export type AsyncPluginKind = 'authn' | 'authz' | 'admission' | 'discovery' | 'driver';

/** What the host does with a call that failed or ran out of time: refuse the request, or go on as if the plugin had agreed. */
export type FailurePolicy = 'fail' | 'ignore';

/** One plugin entry's limits (`timeout`, `failurePolicy` in swarm.config.js). */
export interface CallLimits {
  readonly timeoutMs: number;
  readonly failurePolicy: FailurePolicy;
}

/**
 * A request waits on access plugins before anything else happens, so they get seconds, as a
 * Kubernetes webhook does; a driver's operations include image pulls and engine round trips, and
 * a discovery backend's calls talk to a store that may be electing a leader.
 */
export const DEFAULT_TIMEOUT_MS: Readonly<Record<AsyncPluginKind, number>> = {
  authn: 10_000,
  authz: 10_000,
  admission: 10_000,
  discovery: 30_000,
  driver: 300_000,
};

/**
 * How long an isolated filter's or strategy's hook may run (the whole pass over the nodes) before
 * its worker is ended: the placement waits that long, so it is short.
 */
export const ISOLATED_HOOK_LIMIT_MS = 2000;

export function defaultLimits(kind: AsyncPluginKind): CallLimits {
  return { timeoutMs: DEFAULT_TIMEOUT_MS[kind], failurePolicy: 'fail' };
}

/** `2500` ms as `2.5s`, as the config would write it. */
export function formatLimit(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * The promise's outcome, or `expired()`'s error once `ms` passed. The plugin's own promise is left
 * to settle (nothing can cancel it); its late outcome is dropped.
 */
export function withTimeLimit<T>(promise: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
    timer.unref?.();
  });
  promise.catch(() => undefined);
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
