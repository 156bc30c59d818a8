import { ErrorCodes, SwarmError, type ClusterSettings } from '@swarm/plugin-sdk';

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

const invalid = (message: string): SwarmError => new SwarmError(ErrorCodes.CONFIG_INVALID, message);

function number(options: Readonly<Record<string, string>>, key: string): number | undefined {
  const raw = options[key];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw invalid(`${key} must be a number, "${raw}" is invalid`);
  return value;
}

/** Read and check the `--cluster-opt`s and intervals, with Swarm classic's messages. */
export function readClusterOptions(settings: ClusterSettings): SwarmClusterOptions {
  const overcommit = number(settings.options, 'swarm.overcommit') ?? 0.05;
  if (overcommit <= -1) throw invalid(`swarm.overcommit should be larger than -1, ${overcommit.toFixed(6)} is invalid`);
  const createRetry = number(settings.options, 'swarm.createretry') ?? 0;
  if (!Number.isInteger(createRetry)) throw invalid(`swarm.createretry must be an integer, ${createRetry} is invalid`);
  if (createRetry < 0) throw invalid(`swarm.createretry can not be negative, ${createRetry} is invalid`);
  const timeout = number(settings.options, 'swarm.requesttimeout') ?? 10;
  if (timeout <= 0) throw invalid(`swarm.requesttimeout must be positive, ${timeout} is invalid`);
  const { engineRefreshMinInterval: min, engineRefreshMaxInterval: max, engineFailureRetry: retry } = settings;
  if (!(min > 0)) throw invalid(`min refresh interval should be a positive number, ${min} is invalid`);
  if (max < min) throw invalid('max refresh interval cannot be less than min refresh interval');
  if (!(retry > 0)) throw invalid(`invalid failure retry count, ${retry} is invalid`);
  return {
    overcommitPercent: Math.trunc(overcommit * 100),
    createRetry,
    refreshMinMs: min * 1000,
    refreshMaxMs: max * 1000,
    failureRetry: retry,
    requestTimeoutMs: timeout * 1000,
  };
}
