import { isSwarmError, type Logger, type SwarmError } from '@swarm/plugin-sdk';
import { CoreErrors } from '../errors.js';

/** The plugin kinds whose faults the host catches at its calls into them. */
export type GuardedKind = 'filter' | 'strategy' | 'driver' | 'discovery';

/** Turns a plugin's fault (at a placement, or in a call into a driver or discovery backend) into an error that names it, and logs it without flooding. */
export interface PluginGuard {
  /** The error for the client: `filter "gpu" (swarm-plugin-gpu@0.1.0) failed: ...`. A SwarmError the plugin meant passes through. */
  failed(kind: GuardedKind, name: string, error: unknown): SwarmError;
}

/** One stack per plugin and minute at error level; the failures in between are counted in the next line. */
const LOG_EVERY_MS = 60_000;

/**
 * `labelOf` names the package that provides a filter, strategy, driver or discovery backend
 * (`name@version`); built-ins have none.
 */
export function pluginGuard(labelOf: (kind: GuardedKind, name: string) => string | undefined, logger: Logger | undefined): PluginGuard {
  const logged = new Map<string, { at: number; suppressed: number }>();
  return {
    failed(kind, name, error) {
      if (isSwarmError(error)) return error;
      const plugin = labelOf(kind, name) ?? 'built-in';
      const reason = error instanceof Error ? error.message : String(error);
      const key = `${kind}:${name}`;
      const now = Date.now();
      const last = logged.get(key);
      if (!last || now - last.at >= LOG_EVERY_MS) {
        logger?.error(
          { err: error, kind, name, plugin, suppressed: last?.suppressed ?? 0 },
          `${kind} "${name}" (${plugin}) failed ${kind === 'filter' || kind === 'strategy' ? 'at a placement' : 'in a call'}; swarm keeps serving (this plugin's failures are logged once a minute)`,
        );
        logged.set(key, { at: now, suppressed: 0 });
      } else last.suppressed++;
      return CoreErrors.pluginFailed({ kind, name, plugin, reason }, { cause: error, details: { kind, name, plugin } });
    },
  };
}
