import type { ClusterSettings } from '@swarm/plugin-sdk';
import { parseDuration } from '@swarm/plugin-sdk/helpers';
import { SwarmErrors } from './errors.js';

export interface SwarmClusterOptions {
  /** Integer percentage, as Swarm classic keeps it (`swarm.overcommit` 0.05 → 5). */
  overcommitPercent: number;
  createRetry: number;
  refreshMinMs: number;
  refreshMaxMs: number;
  /**
   * The longest wait between two tries of an engine not validated yet: the discovery heartbeat, at
   * which Swarm classic validated its pending engines again (and the refresh interval's upper bound).
   */
  pendingRetryMaxMs: number;
  failureRetry: number;
  /** Bound on every non-streaming engine call (`swarm.requesttimeout`, seconds, default 10). */
  requestTimeoutMs: number;
  /** How often a silent engine is asked whether it is alive (`swarm.livenessinterval`, seconds, default 3). */
  livenessIntervalMs: number;
  /** How long a liveness check waits before the engine counts as hung (`swarm.livenesstimeout`, seconds, default 4). */
  livenessTimeoutMs: number;
  /** How long a node stays down before its containers are rescheduled (`swarm.reschedule.grace`, Go duration, default 0). */
  rescheduleGraceMs: number;
}

function number(options: Readonly<Record<string, string>>, key: string): number | undefined {
  const raw = options[key];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw SwarmErrors.optionNotNumber({ key, raw });
  return value;
}

function positiveSeconds(options: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const value = number(options, key) ?? fallback;
  if (!(value > 0)) throw SwarmErrors.positiveSecondsInvalid({ key, value });
  return value * 1000;
}

function graceMs(options: Readonly<Record<string, string>>): number {
  const key = 'swarm.reschedule.grace';
  const raw = options[key];
  if (raw === undefined) return 0;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch (error) {
    throw SwarmErrors.durationOptionInvalid({ key, raw, reason: error instanceof Error ? error.message : String(error) });
  }
  if (ms < 0) throw SwarmErrors.durationOptionInvalid({ key, raw, reason: 'it is negative' });
  return ms;
}

/** Read and check the `--cluster-opt`s and intervals, with Swarm classic's messages. */
export function readClusterOptions(settings: ClusterSettings): SwarmClusterOptions {
  const overcommit = number(settings.options, 'swarm.overcommit') ?? 0.05;
  if (overcommit <= -1) throw SwarmErrors.overcommitInvalid({ value: overcommit });
  const createRetry = number(settings.options, 'swarm.createretry') ?? 0;
  if (!Number.isInteger(createRetry)) throw SwarmErrors.createRetryNotInteger({ value: createRetry });
  if (createRetry < 0) throw SwarmErrors.createRetryNegative({ value: createRetry });
  const timeout = number(settings.options, 'swarm.requesttimeout') ?? 10;
  if (timeout <= 0) throw SwarmErrors.requestTimeoutInvalid({ value: timeout });
  const { engineRefreshMinInterval: min, engineRefreshMaxInterval: max, engineFailureRetry: retry } = settings;
  if (!(min > 0)) throw SwarmErrors.refreshMinInvalid({ value: min });
  if (max < min) throw SwarmErrors.refreshMaxBelowMin();
  if (!(retry > 0)) throw SwarmErrors.failureRetryInvalid({ value: retry });
  return {
    overcommitPercent: Math.trunc(overcommit * 100),
    createRetry,
    refreshMinMs: min * 1000,
    refreshMaxMs: max * 1000,
    pendingRetryMaxMs: Math.min(max, settings.heartbeat > 0 ? settings.heartbeat : max) * 1000,
    failureRetry: retry,
    requestTimeoutMs: timeout * 1000,
    livenessIntervalMs: positiveSeconds(settings.options, 'swarm.livenessinterval', 3),
    livenessTimeoutMs: positiveSeconds(settings.options, 'swarm.livenesstimeout', 4),
    rescheduleGraceMs: graceMs(settings.options),
  };
}
