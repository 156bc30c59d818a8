import { configError } from './config-error.js';
import { parseDuration } from './duration.js';
import type { ConfigLayer, ConfigOrigin } from './layers.js';
import type { AccessCallInput, DurationInput } from './input.js';

/** How the host calls one configured plugin (`plugins: [['x', { timeout: '5s', isolate: true }]]`). */
export interface PluginEntrySettings {
  /** The limit on each of its async calls (driver operations, discovery calls), in ms. */
  readonly timeoutMs?: number;
  /**
   * Its filters and strategies run in a worker thread, and each of its access plugins (authn,
   * authz, admission) in one of its own; a worker is ended when a hook does not return within the
   * timeout.
   */
  readonly isolate?: boolean;
}

/** An access entry's call settings (`['rules', {...}, { timeout: '2s', failurePolicy: 'ignore' }]`). */
export interface AccessCallSettings {
  readonly timeoutMs?: number;
  readonly failurePolicy?: 'fail' | 'ignore';
}

/** A positive duration in ms, or a config error naming the key path. */
function limitMs(origin: ConfigOrigin, keyPath: string, value: DurationInput): number {
  let seconds: number;
  try {
    seconds = parseDuration(value);
  } catch (error) {
    throw configError(origin, keyPath, `${(error as Error).message}: write a duration such as "5s" or "500ms"`);
  }
  if (!(seconds > 0)) throw configError(origin, keyPath, 'should be a positive duration, such as "5s"');
  return Math.round(seconds * 1000);
}

/** The plugin names of every layer (each once, in order) and each entry's settings, checked. */
export function resolvePluginEntries(layers: readonly ConfigLayer[]): { names: string[]; settings: Map<string, PluginEntrySettings> } {
  const names: string[] = [];
  const settings = new Map<string, PluginEntrySettings>();
  for (const layer of layers) {
    (layer.input.plugins ?? []).forEach((entry, index) => {
      const [name, input] = typeof entry === 'string' ? [entry, undefined] : entry;
      if (!names.includes(name)) names.push(name);
      if (!input) return;
      const keyPath = `plugins[${index}][1]`;
      settings.set(name, {
        ...(input.timeout !== undefined ? { timeoutMs: limitMs(layer.origin, `${keyPath}.timeout`, input.timeout) } : {}),
        ...(input.isolate ? { isolate: true } : {}),
      });
    });
  }
  return { names, settings };
}

/** Access kinds whose failures refuse the request whatever the entry says: only admission can be told to let a request through. */
const OPEN_ALLOWED = new Set(['admission']);

export function resolveAccessCall(
  origin: ConfigOrigin,
  kind: string,
  index: number,
  input: AccessCallInput | undefined,
): AccessCallSettings | undefined {
  if (!input) return undefined;
  const keyPath = `access.${kind}[${index}][2]`;
  if (input.failurePolicy === 'ignore' && !OPEN_ALLOWED.has(kind)) {
    throw configError(
      origin,
      `${keyPath}.failurePolicy`,
      `an ${kind} plugin fails closed: only admission controllers can take failurePolicy: 'ignore'`,
    );
  }
  return {
    ...(input.timeout !== undefined ? { timeoutMs: limitMs(origin, `${keyPath}.timeout`, input.timeout) } : {}),
    ...(input.failurePolicy ? { failurePolicy: input.failurePolicy } : {}),
  };
}

/** `watchdog.limit` of the highest layer that sets it, in ms; 0 turns the watchdog off. */
export function resolveWatchdog(layers: readonly ConfigLayer[]): number | undefined {
  for (let i = layers.length - 1; i >= 0; i--) {
    const limit = layers[i]!.input.watchdog?.limit;
    if (limit === undefined) continue;
    if (limit === 0 || limit === '0') return 0;
    return limitMs(layers[i]!.origin, 'watchdog.limit', limit);
  }
  return undefined;
}
