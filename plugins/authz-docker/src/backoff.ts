/*
 * dockerd's plugin retry policy (moby pkg/plugins client.go and plugins.go): after a failure it
 * waits 1 s, 2 s, 4 s, ... (at most 30 s) and gives up when the next wait would end past 30 s from
 * the first try: tries at 0, 1, 3, 7 and 15 s, then the last error. It applies to finding a plugin
 * by name and to every call that cannot reach it (not to a plugin that answers with an error).
 */

const MAX_WAIT_MS = 30_000;

/** dockerd's wait before retry number `retries + 1`. */
export function backoffMs(retries: number): number {
  return Math.min(1000 * 2 ** Math.min(retries, 5), MAX_WAIT_MS);
}

/** Told before each wait, so the operator hears why a start or a request takes seconds. */
export type RetryListener = (failure: Error, waitMs: number) => void;

/**
 * Runs `attempt` until it returns a value; an attempt that throws `RetryableFailure` is tried again
 * on dockerd's schedule within `budgetMs` (dockerd's is 30 000), then its cause is thrown.
 */
export async function withRetry<T>(attempt: () => Promise<T>, budgetMs: number, onRetry?: RetryListener): Promise<T> {
  const start = Date.now();
  for (let retries = 0; ; retries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RetryableFailure)) throw error;
      const wait = backoffMs(retries);
      if (wait + (Date.now() - start) >= budgetMs) throw error.cause;
      onRetry?.(error.cause, wait);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Wraps a failure that another try may cure (a plugin not reachable, or not there yet). */
export class RetryableFailure extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
    this.name = 'RetryableFailure';
  }
}
