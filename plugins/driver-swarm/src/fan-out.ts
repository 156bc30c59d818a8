import { ErrorCodes, SwarmError } from '@swarm/plugin-sdk';
import type { EngineMonitor } from './engine-monitor.js';

/**
 * Run an operation on several engines at once, with one `node: error` line per failed engine as
 * Swarm classic joins them. `strict` (tag, rmi, volume rm) fails when any engine failed; otherwise
 * (pull, load, import, volume create) only when every engine failed.
 */
export async function fanOut<T>(
  monitors: readonly EngineMonitor[],
  operation: (monitor: EngineMonitor) => Promise<T>,
  strict = false,
): Promise<T[]> {
  const settled = await Promise.allSettled(monitors.map(operation));
  const results: T[] = [];
  const errors: string[] = [];
  let firstError: unknown;
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') results.push(outcome.value);
    else {
      firstError ??= outcome.reason;
      const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
      errors.push(`${monitors[index]!.node.name || monitors[index]!.node.addr}: ${reason}`);
    }
  });
  if (errors.length > 0 && (strict || results.length === 0)) {
    const status = firstError instanceof SwarmError ? firstError.httpStatus : 500;
    throw new SwarmError(firstError instanceof SwarmError ? firstError.code : ErrorCodes.ENGINE_ERROR, errors.join('\n'), {
      httpStatus: status,
      cause: firstError,
    });
  }
  return results;
}
