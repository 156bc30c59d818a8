import type { LoadedPlugin } from '../plugins/loaded-plugin.js';

/**
 * The third-party plugin whose own code a stack trace passes through (`swarm-plugin-sim@0.1.0`),
 * so a fault in a plugin's timer or callback, which no call of the host's wraps, still names the
 * plugin in the log. The innermost frame in a plugin's folder wins.
 */
export function pluginOfStack(stack: string | undefined, plugins: readonly LoadedPlugin[]): string | undefined {
  if (!stack) return undefined;
  const candidates = plugins.filter((plugin) => !plugin.builtin);
  for (const frame of stack.split('\n').slice(1)) {
    const plugin = candidates.find((candidate) => frame.includes(`${candidate.dir}/`));
    if (plugin) return `${plugin.manifest.name}@${plugin.manifest.version}`;
  }
  return undefined;
}
