import type { ResolvedConfig } from '../../config/resolve.js';

/** The watchdog's limit when plugin packages run in the manager's thread and none is configured. */
export const DEFAULT_WATCHDOG_MS = 10_000;

/**
 * The watchdog's limit in ms (0: none): the configured one, or by default 10 s when plugin packages
 * run in the manager's thread, and none when only swarm's own code does (no package, or each one
 * isolated in a worker whose hooks have limits of their own). Its thread holds about 10 MB, a sixth
 * of an idle manager, to guard against code the operator did not write.
 */
export function watchdogLimitMs(resolved: Pick<ResolvedConfig, 'config' | 'pluginSettings' | 'watchdogMs'>): number {
  if (resolved.watchdogMs !== undefined) return resolved.watchdogMs;
  const inProcess = resolved.config.plugins.some((name) => resolved.pluginSettings?.get(name)?.isolate !== true);
  return inProcess ? DEFAULT_WATCHDOG_MS : 0;
}
