import { isSwarmError, type Logger, type SwarmError } from '@swarm/plugin-sdk';
import { formatLimit } from './call-limits.js';
import { CallMarks } from './watchdog/call-marks.js';
import { CoreErrors } from '../errors.js';

/** The plugin kinds whose faults the host catches at its calls into them. */
export type GuardedKind = 'filter' | 'strategy' | 'driver' | 'discovery' | 'authn' | 'authz' | 'admission';

/** How one call into a plugin ended. */
export type CallOutcome = 'ok' | 'failed' | 'timeout';

/** Where a plugin was when it failed: the hook (`check()`, `createContainer()`) and, at a placement, the node. */
export interface FaultSite {
  readonly hook?: string;
  readonly node?: string;
}

/** Told of every call into a plugin the host times (the API server's metrics). */
export interface PluginCallSink {
  pluginCall(kind: GuardedKind, name: string, plugin: string, seconds: number, outcome: CallOutcome): void;
}

/** Turns a plugin's fault (at a placement, or in a call into a driver or discovery backend) into an error that names it, and logs it without flooding. */
export interface PluginGuard {
  /** The error for the client: `filter "gpu" (swarm-plugin-gpu@0.1.0) failed in check() on node "n1": ...`. A SwarmError the plugin meant passes through. */
  failed(kind: GuardedKind, name: string, error: unknown, site?: FaultSite): SwarmError;
  /** The error for a call that did not settle within `limitMs`, logged like a failure. */
  timedOut(kind: GuardedKind, name: string, limitMs: number, site?: FaultSite): SwarmError;
  /** The error for a plugin that answered outside its contract (`prepare() must return the check synchronously; it returned a Promise`). */
  broke(kind: GuardedKind, name: string, contract: string): SwarmError;
  /** Logs (at warn) a failure the entry's `failurePolicy: 'ignore'` let pass. */
  ignored(kind: GuardedKind, name: string, error: unknown): void;
  /** `name@version` of the package, or `built-in`. */
  labelOf(kind: GuardedKind, name: string): string;
  /** Counts one call (metrics); cheap enough for every placement. */
  observe(kind: GuardedKind, name: string, seconds: number, outcome: CallOutcome): void;
  /** Where calls are reported from now on (one sink: the API server that serves this deployment). */
  report(sink: PluginCallSink | undefined): void;
  /** Where the host marks the plugin call it is in, for the watchdog. */
  readonly marks: CallMarks;
}

/** One stack per plugin and minute at error level; the failures in between are counted in the next line. */
const LOG_EVERY_MS = 60_000;

function where(site: FaultSite | undefined): string {
  if (!site?.hook) return '';
  return site.node === undefined ? ` in ${site.hook}` : ` in ${site.hook} on node "${site.node}"`;
}

/**
 * `labelOf` names the package that provides a plugin (`name@version`); built-ins have none.
 */
export function pluginGuard(
  labelOf: (kind: GuardedKind, name: string) => string | undefined,
  logger: Logger | undefined,
  marks: CallMarks = new CallMarks(),
): PluginGuard {
  const logged = new Map<string, { at: number; suppressed: number }>();
  let sink: PluginCallSink | undefined;
  const label = (kind: GuardedKind, name: string) => labelOf(kind, name) ?? 'built-in';
  const log = (kind: GuardedKind, name: string, plugin: string, error: unknown, text: string) => {
    const key = `${kind}:${name}`;
    const now = Date.now();
    const last = logged.get(key);
    if (!last || now - last.at >= LOG_EVERY_MS) {
      logger?.error(
        { err: error, kind, name, plugin, suppressed: last?.suppressed ?? 0 },
        `${text}; swarm keeps serving (this plugin's failures are logged once a minute)`,
      );
      logged.set(key, { at: now, suppressed: 0 });
    } else last.suppressed++;
  };
  return {
    failed(kind, name, error, site) {
      if (isSwarmError(error)) return error;
      const plugin = label(kind, name);
      const reason = error instanceof Error ? error.message : String(error);
      const at = where(site);
      const during = kind === 'filter' || kind === 'strategy' ? 'at a placement' : 'in a call';
      log(kind, name, plugin, error, `${kind} "${name}" (${plugin}) failed ${during}${at ? ` (${at.trim()})` : ''}`);
      return CoreErrors.pluginFailed(
        { kind, name, plugin, reason, where: at },
        {
          cause: error,
          details: {
            kind,
            name,
            plugin,
            ...(site?.hook ? { hook: site.hook } : {}),
            ...(site?.node !== undefined ? { node: site.node } : {}),
          },
        },
      );
    },
    timedOut(kind, name, limitMs, site) {
      const plugin = label(kind, name);
      const error = CoreErrors.pluginTimedOut(
        { kind, name, plugin, limit: formatLimit(limitMs), where: where(site) },
        { details: { kind, name, plugin, limitMs, ...(site?.hook ? { hook: site.hook } : {}) } },
      );
      log(kind, name, plugin, error, error.message);
      return error;
    },
    broke(kind, name, contract) {
      const plugin = label(kind, name);
      const error = CoreErrors.pluginContract({ kind, name, plugin, contract }, { details: { kind, name, plugin, contract } });
      log(kind, name, plugin, error, error.message);
      return error;
    },
    ignored(kind, name, error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger?.warn(
        { err: error, kind, name, plugin: label(kind, name) },
        `${kind} "${name}" failed and its failurePolicy is ignore: the request goes on (${reason})`,
      );
    },
    labelOf: label,
    observe(kind, name, seconds, outcome) {
      sink?.pluginCall(kind, name, label(kind, name), seconds, outcome);
    },
    report(next) {
      sink = next;
    },
    marks,
  };
}
