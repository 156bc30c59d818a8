import type { ExtensionKind, Logger } from '@swarm/plugin-sdk';
import type { DependencyContainer } from 'tsyringe';
import { commitProviders, createDeploymentContainer } from '../di/containers.js';
import { loadBuiltins, type BuiltinFailure } from '../plugins/builtins.js';
import { loadPlugins } from '../plugins/load.js';
import type { LoadedPlugin } from '../plugins/loaded-plugin.js';
import { stagePlugins, type StagedProvider } from '../plugins/stage.js';

/** The built-in plugins plus a config's plugins, registered (staged) and ready to commit. */
export interface PluginSet {
  /** Built-ins first, then the config's plugins, in order. */
  readonly plugins: readonly LoadedPlugin[];
  readonly builtinFailures: readonly BuiltinFailure[];
  readonly staged: readonly StagedProvider[];
  /** Provider names registered for a kind, sorted. */
  available(kind: ExtensionKind): string[];
  /** A fresh child container with every staged provider in it. */
  createContainer(): DependencyContainer;
}

/**
 * Load the built-ins and `specs` (resolved from `configDir`) in parallel and stage their
 * registrations. Throws (with nothing registered anywhere) if any configured plugin fails.
 */
export async function loadPluginSet(specs: readonly string[], configDir: string, logger: Logger): Promise<PluginSet> {
  const [builtins, configured] = await Promise.all([loadBuiltins(), loadPlugins(specs, configDir)]);
  const builtinDirs = new Set(builtins.plugins.map((plugin) => plugin.dir));
  const plugins = [...builtins.plugins, ...configured.filter((plugin) => !builtinDirs.has(plugin.dir))];
  for (const failure of builtins.failures) {
    logger.debug({ plugin: failure.packageName, err: failure.error.message }, 'built-in plugin unavailable');
  }
  const staged = stagePlugins(plugins);
  return {
    plugins,
    builtinFailures: builtins.failures,
    staged,
    available: (kind) => staged.filter((entry) => entry.kind === kind).map((entry) => entry.name).sort(),
    createContainer: () => {
      const container = createDeploymentContainer();
      commitProviders(container, staged);
      return container;
    },
  };
}
