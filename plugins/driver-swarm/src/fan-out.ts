import { isSwarmError } from '@swarm/plugin-sdk';
import type { EngineMonitor } from './engine-monitor.js';
import { SwarmErrors } from './errors.js';

/**
 * Run an operation on several engines at once, with one `node: error` line per failed engine as
 * Swarm classic joins them. `strict` (tag, rmi, volume rm) fails when any engine failed; otherwise
 * (pull, load, import, volume create) only when every engine failed. The status is the first
 * failed engine's.
 */
export async function fanOut<T>(
  monitors: readonly EngineMonitor[],
  operation: (monitor: EngineMonitor) => Promise<T>,
  strict = false,
): Promise<T[]> {
  const settled = await Promise.allSettled(monitors.map(operation));
  const results: T[] = [];
  const failures: string[] = [];
  let firstError: unknown;
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') results.push(outcome.value);
    else {
      firstError ??= outcome.reason;
      const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
      failures.push(`${monitors[index]!.node.name || monitors[index]!.node.addr}: ${reason}`);
    }
  });
  if (failures.length > 0 && (strict || results.length === 0)) {
    throw SwarmErrors.fanOutFailed({ failures }, { cause: firstError, httpStatus: isSwarmError(firstError) ? firstError.httpStatus : 500 });
  }
  return results;
}
