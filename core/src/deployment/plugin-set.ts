import { Tokens, type ExtensionKind, type Logger } from '@swarm/plugin-sdk';
import type { DependencyContainer } from 'tsyringe';
import { commitProviders, createDeploymentContainer } from '../di/containers.js';
import { BuiltinPlugins, type BuiltinFailure, type Builtins } from '../plugins/builtins.js';
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

/** The providers a command will resolve, so only the built-ins it needs are imported. */
export interface PluginNeeds {
  readonly drivers?: readonly string[];
  readonly filters?: readonly string[];
  readonly strategies?: readonly string[];
  readonly discoverySchemes?: readonly string[];
  readonly web?: readonly string[];
  readonly authn?: readonly string[];
  readonly authz?: readonly string[];
  readonly admission?: readonly string[];
}

const NEED_KINDS = [
  ['drivers', 'driver', Tokens.ClusterDriver],
  ['filters', 'filter', Tokens.Filter],
  ['strategies', 'strategy', Tokens.Strategy],
  ['discoverySchemes', 'discovery', Tokens.DiscoveryBackend],
  ['web', 'web', Tokens.WebExtension],
  ['authn', 'authn', Tokens.Authenticator],
  ['authz', 'authz', Tokens.Authorizer],
  ['admission', 'admission', Tokens.AdmissionController],
] as const;

function neededBuiltins(available: BuiltinPlugins, needs: PluginNeeds): string[] {
  return NEED_KINDS.flatMap(([key, prefix]) => (needs[key] ?? []).flatMap((name) => available.conventional(prefix, name) ?? []));
}

function satisfies(staged: readonly StagedProvider[], needs: PluginNeeds): boolean {
  return NEED_KINDS.every(([key, , kind]) =>
    (needs[key] ?? []).every((name) => staged.some((entry) => entry.kind === kind && entry.name === name)),
  );
}

function assemble(builtins: Builtins, configured: readonly LoadedPlugin[]): { plugins: LoadedPlugin[]; staged: StagedProvider[] } {
  const builtinDirs = new Set(builtins.plugins.map((plugin) => plugin.dir));
  const plugins = [...builtins.plugins, ...configured.filter((plugin) => !builtinDirs.has(plugin.dir))];
  return { plugins, staged: stagePlugins(plugins) };
}

/**
 * Load the built-ins and `specs` (resolved from `configDir`) in parallel and stage their
 * registrations. With `needs`, only the built-ins named after what is needed are imported
 * (`filter` `port` → `@swarm/filter-port`); if something is still missing (an alias, a typo), all
 * built-ins are loaded so errors can list every name. Throws, with nothing registered anywhere,
 * if any configured plugin fails.
 */
export async function loadPluginSet(specs: readonly string[], configDir: string, logger: Logger, needs?: PluginNeeds): Promise<PluginSet> {
  const available = new BuiltinPlugins();
  const [selected, configured] = await Promise.all([
    available.load(needs && neededBuiltins(available, needs)),
    loadPlugins(specs, configDir),
  ]);
  let builtins = selected;
  let { plugins, staged } = assemble(builtins, configured);
  if (needs && !satisfies(staged, needs)) {
    builtins = await available.load();
    ({ plugins, staged } = assemble(builtins, configured));
  }
  for (const failure of builtins.failures) {
    logger.debug({ plugin: failure.packageName, err: failure.error.message }, 'built-in plugin unavailable');
  }
  return {
    plugins,
    builtinFailures: builtins.failures,
    staged,
    available: (kind) =>
      staged
        .filter((entry) => entry.kind === kind)
        .map((entry) => entry.name)
        .sort(),
    createContainer: () => {
      const container = createDeploymentContainer();
      commitProviders(container, staged);
      return container;
    },
  };
}
