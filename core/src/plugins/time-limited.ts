import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { withTimeLimit, type CallLimits } from './call-limits.js';
import type { GuardedKind, PluginGuard } from './plugin-guard.js';

/** What a call answers instead of failing, under `failurePolicy: 'ignore'` (an admission controller's `admit`: allowed, unchanged). */
export type IgnoredAnswer = (method: string) => { readonly value: unknown } | undefined;

function isTimeout(error: unknown): boolean {
  return isSwarmError(error) && error.code === ErrorCodes.PLUGIN_TIMEOUT;
}

/**
 * An access plugin as the host calls it: each call that returns a promise is held to
 * `limits.timeoutMs` (expiry: PLUGIN_TIMEOUT naming the plugin and the limit) and counted in the
 * guard's metrics. Under `failurePolicy: 'ignore'`, a call that fails or runs out of time answers
 * what `ignored` gives for its method (logged at warn), as a webhook with `failurePolicy: Ignore`.
 * Errors are otherwise left as they are, for the caller's own handling (access control fails closed).
 */
export function timeLimited<T extends object>(
  plugin: T,
  kind: GuardedKind,
  name: string,
  guard: PluginGuard,
  limits: CallLimits,
  ignored: IgnoredAnswer = () => undefined,
): T {
  const wrapped = new Map<PropertyKey, unknown>();
  const fallback = (method: string, error: unknown, started: number): unknown => {
    guard.observe(kind, name, (performance.now() - started) / 1000, isTimeout(error) ? 'timeout' : 'failed');
    const instead = limits.failurePolicy === 'ignore' ? ignored(method) : undefined;
    if (!instead) throw error;
    guard.ignored(kind, name, error);
    return instead.value;
  };
  return new Proxy(plugin, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      const known = wrapped.get(key) as { original: unknown } | undefined;
      if (known?.original === value) return known;
      const method = value as (...args: unknown[]) => unknown;
      const hook = String(key);
      const site = guard.marks.site(`${kind} "${name}" (${guard.labelOf(kind, name)}) in ${hook}()`);
      const call = Object.assign(
        (...args: unknown[]): unknown => {
          const started = performance.now();
          let result: unknown;
          const outer = guard.marks.enter(site);
          try {
            result = method.apply(object, args);
          } catch (error) {
            return fallback(hook, error, started);
          } finally {
            guard.marks.exit(outer);
          }
          if (!(result instanceof Promise)) return result;
          return withTimeLimit(result, limits.timeoutMs, () => guard.timedOut(kind, name, limits.timeoutMs, { hook: `${hook}()` })).then(
            (answer: unknown) => {
              guard.observe(kind, name, (performance.now() - started) / 1000, 'ok');
              return answer;
            },
            (error: unknown) => fallback(hook, error, started),
          );
        },
        { original: value },
      );
      wrapped.set(key, call);
      return call;
    },
  });
}
