import { readFileSync } from 'node:fs';

/**
 * How the engines' connections share the process's open files. Each engine holds its event stream;
 * what is left (after a reserve for the API's clients, proxied streams and files) pays for idle
 * kept-alive connections per engine and for calls in flight over all engines. Without such a plan,
 * thousands of engines take every file descriptor and the API stops accepting clients.
 */
export interface ConnectionPlan {
  /** Idle kept-alive call connections per engine (0: each call connects anew). */
  readonly callIdle: number;
  /** Idle liveness connections per engine (0 or 1). */
  readonly livenessIdle: number;
  /** Engine calls in flight over all engines; undefined: no bound beyond each engine's own. */
  readonly callsInFlight: number | undefined;
  /** The limit cannot hold an event stream per engine plus the reserve and a few calls. */
  readonly short: boolean;
}

/** Calls of engines' full loads in flight over the cluster, about: parallel reads per engine × engines loading at once. */
const LOAD_CALLS_AT_ONCE = 128;

/**
 * Reads one engine's full load makes at once: as many as it keeps idle connections, so a load
 * reuses its connections instead of opening and closing more (at least 1, at most 8).
 */
export function parallelReads(plan: ConnectionPlan): number {
  return Math.max(1, Math.min(MAX_IDLE_PER_ENGINE, plan.callIdle));
}

/** Engines loading their whole state at once, so the cluster keeps about the same number of reads in flight. */
export function loadsAtOnce(plan: ConnectionPlan): number {
  return Math.ceil(LOAD_CALLS_AT_ONCE / parallelReads(plan));
}

const MAX_IDLE_PER_ENGINE = 8;
/** Without a known limit: idle connections over all engines, as before there was a plan. */
const IDLE_WITHOUT_LIMIT = 8000;
const MIN_CALLS_IN_FLIGHT = 64;

/** Open files kept for the API's clients, proxied streams and files: a tenth of the limit, within bounds. */
export function apiReserve(limit: number): number {
  return Math.min(4096, Math.max(256, Math.floor(limit / 10)));
}

/** The process's soft limit on open files (Linux `/proc/self/limits`); undefined where unknown or unlimited. */
export function openFilesLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    const limit = Number(line?.[1]);
    return Number.isFinite(limit) && limit > 0 ? limit : undefined;
  } catch {
    return undefined;
  }
}

export function connectionPlan(engines: number, limit: number | undefined): ConnectionPlan {
  const count = Math.max(1, engines);
  if (limit === undefined) {
    const callIdle = Math.max(2, Math.min(MAX_IDLE_PER_ENGINE, Math.floor(IDLE_WITHOUT_LIMIT / count)));
    return { callIdle, livenessIdle: 1, callsInFlight: undefined, short: false };
  }
  const budget = limit - apiReserve(limit);
  const spare = budget / count - 1; // beyond each engine's event stream
  const livenessIdle = spare >= 3 ? 1 : 0;
  const callIdle = Math.max(0, Math.min(MAX_IDLE_PER_ENGINE, Math.floor((spare - livenessIdle) / 2)));
  const left = budget - count * (1 + livenessIdle + callIdle);
  return {
    callIdle,
    livenessIdle,
    callsInFlight: Math.max(MIN_CALLS_IN_FLIGHT, left),
    short: left < MIN_CALLS_IN_FLIGHT,
  };
}

/** The open-files limit a cluster of `engines` needs to run without a short plan. */
export function openFilesNeeded(engines: number): number {
  let limit = 1024;
  while (connectionPlan(engines, limit).short) limit *= 2;
  return limit;
}
