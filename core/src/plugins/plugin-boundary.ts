import { Readable } from 'node:stream';
import { ErrorCodes } from '@swarm/plugin-sdk';
import { withTimeLimit } from './call-limits.js';
import type { GuardedKind, PluginGuard } from './plugin-guard.js';

/** Members that hand out the plugin's own objects for the host to call again: guarded too. */
const NESTED = new Set(['capabilities']);

/** A driver's or backend's own life (connecting every engine, leaving a store) takes what it takes. */
const LIFECYCLE = new Set(['start', 'stop', 'close']);

/**
 * A call given a progress listener or a body stream is a transfer (a pull, a load, a build): it
 * reports as it goes and may last as long as the bytes do, so only its failures are guarded.
 */
function isTransfer(key: PropertyKey, args: readonly unknown[]): boolean {
  return (typeof key === 'string' && LIFECYCLE.has(key)) || args.some((arg) => typeof arg === 'function' || arg instanceof Readable);
}

/**
 * A third-party driver or discovery backend as the host calls it: a method that throws, or a
 * promise that rejects, with anything but a SwarmError (which the plugin meant) becomes the
 * coded error that names the plugin (`driver "sim" (swarm-plugin-sim@0.1.0) failed: ...`),
 * logged once a minute; the host keeps serving. The objects it returns (nodes, containers) are
 * its data and are not wrapped: the scheduler reads them on its hot path.
 */
export function guardPlugin<T extends object>(target: T, kind: GuardedKind, name: string, guard: PluginGuard, timeoutMs?: number): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value === 'function') {
        const known = wrapped.get(key);
        if (known && (known as { original: unknown }).original === value) return known;
        const method = value as (...args: unknown[]) => unknown;
        const hook = `${String(key)}()`;
        const site = guard.marks.site(`${kind} "${name}" (${guard.labelOf(kind, name)}) in ${hook}`);
        const call = Object.assign(
          (...args: unknown[]): unknown => {
            let result: unknown;
            const outer = guard.marks.enter(site);
            try {
              result = method.apply(object, args);
            } catch (error) {
              throw guard.failed(kind, name, error, { hook });
            } finally {
              guard.marks.exit(outer);
            }
            if (result instanceof Promise) {
              const started = performance.now();
              const limited =
                timeoutMs === undefined || isTransfer(key, args)
                  ? result
                  : withTimeLimit(result, timeoutMs, () => guard.timedOut(kind, name, timeoutMs, { hook }));
              return limited.then(
                (value: unknown) => {
                  guard.observe(kind, name, (performance.now() - started) / 1000, 'ok');
                  return value;
                },
                (error: unknown) => {
                  const timedOut = error instanceof Error && (error as { code?: string }).code === ErrorCodes.PLUGIN_TIMEOUT;
                  guard.observe(kind, name, (performance.now() - started) / 1000, timedOut ? 'timeout' : 'failed');
                  throw timedOut ? error : guard.failed(kind, name, error, { hook });
                },
              );
            }
            return result;
          },
          { original: value },
        );
        wrapped.set(key, call);
        return call;
      }
      if (typeof key === 'string' && NESTED.has(key) && typeof value === 'object' && value !== null) {
        const known = wrapped.get(key) as { original: unknown; proxy: unknown } | undefined;
        if (known?.original === value) return known.proxy;
        const proxy = guardMembers(value, kind, name, guard, timeoutMs);
        wrapped.set(key, { original: value, proxy });
        return proxy;
      }
      return value;
    },
  });
}

/** Each member object (a capability) guarded like the plugin itself. */
function guardMembers(members: object, kind: GuardedKind, name: string, guard: PluginGuard, timeoutMs: number | undefined): object {
  const guarded = new WeakMap<object, object>();
  return new Proxy(members, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'object' || value === null) return value;
      let proxy = guarded.get(value);
      if (!proxy) guarded.set(value, (proxy = guardPlugin(value, kind, name, guard, timeoutMs)));
      return proxy;
    },
  });
}
