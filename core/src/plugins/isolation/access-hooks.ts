import type { Caller } from '@swarm/plugin-sdk/access';
import type { IsolatedAccessPlugin } from './isolated-access.js';

/**
 * The access plugin as the host calls it: the hooks its worker's plugin has, each a call into the
 * worker. Resolves once the worker ran the entry's factory (rejects with the factory's error).
 */
export async function isolatedAccessPlugin(host: IsolatedAccessPlugin): Promise<object> {
  const hooks = await host.hooks();
  const plugin: Record<string, unknown> = {};
  for (const hook of hooks) {
    plugin[hook] = hook === 'roles' ? (caller: Caller) => host.roles(caller) : (...args: unknown[]) => host.call(hook, args);
  }
  return plugin;
}
