import type { ClusterSettings } from '@swarm/plugin-sdk';
import { SwarmErrors } from './errors.js';

export interface SwarmClusterOptions {
  /** Integer percentage, as Swarm classic keeps it (`swarm.overcommit` 0.05 → 5). */
  overcommitPercent: number;
  createRetry: number;
  refreshMinMs: number;
  refreshMaxMs: number;
  failureRetry: number;
  /** Bound on every non-streaming engine call (`swarm.requesttimeout`, seconds, default 10). */
  requestTimeoutMs: number;
}

function number(options: Readonly<Record<string, string>>, key: string): number | undefined {
  const raw = options[key];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw SwarmErrors.optionNotNumber({ key, raw });
  return value;
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
    failureRetry: retry,
    requestTimeoutMs: timeout * 1000,
  };
}
