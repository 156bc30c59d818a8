/**
 * How often each engine's monitor refreshes and checks liveness. The flags set the pace of a small
 * cluster; a large one stretches both so that the work over all engines stays bounded: the event
 * streams keep the state current, and the periodic calls (a safety net for missed events, and the
 * check that a quiet engine still answers) would otherwise grow with the cluster until they were
 * most of the manager's work.
 */
export interface PacingTimings {
  readonly refreshMinMs: number;
  readonly refreshMaxMs: number;
  readonly livenessIntervalMs: number;
}

/** Periodic refreshes per second over all engines, at most. */
const REFRESHES_PER_SECOND = 20;
/** Liveness checks per second over all engines, at most. */
const LIVENESS_CHECKS_PER_SECOND = 200;

/**
 * The wait before an engine's next refresh: between the min and max intervals (`random` in [0, 1)
 * picks where), times the stretch that keeps `engines` under REFRESHES_PER_SECOND.
 */
export function refreshDelayMs(timings: PacingTimings, engines: number, random: number): number {
  const { refreshMinMs, refreshMaxMs } = timings;
  const meanMs = (refreshMinMs + refreshMaxMs) / 2;
  const stretch = Math.max(1, (engines / REFRESHES_PER_SECOND) * (1000 / meanMs));
  return stretch * (refreshMinMs + random * Math.max(0, refreshMaxMs - refreshMinMs));
}

/** The liveness interval: the flag's, or longer so that `engines` stay under LIVENESS_CHECKS_PER_SECOND. */
export function livenessIntervalMs(timings: PacingTimings, engines: number): number {
  return Math.max(timings.livenessIntervalMs, (engines / LIVENESS_CHECKS_PER_SECOND) * 1000);
}

/**
 * The wait before an engine's next liveness check: within ±20 % of the interval (`random` in
 * [0, 1)), since engines that connected together would otherwise be checked in the same moment.
 */
export function livenessDelayMs(timings: PacingTimings, engines: number, random: number): number {
  return livenessIntervalMs(timings, engines) * (0.8 + 0.4 * random);
}

/** Periodic checks are due on multiples of this (see `alignedDelayMs`). */
const CHECK_TICK_MS = 50;

/**
 * `delayMs`, lengthened to end on the next multiple of `tickMs` (wall clock `nowMs`): the checks
 * of many engines then fall due in the same timer run, go out in one turn of the event loop and
 * are answered together, instead of waking the manager once per engine.
 */
export function alignedDelayMs(delayMs: number, nowMs: number, tickMs = CHECK_TICK_MS): number {
  const due = nowMs + delayMs;
  return Math.ceil(due / tickMs) * tickMs - nowMs;
}
