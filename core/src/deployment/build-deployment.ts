import {
  Tokens,
  type Clock,
  type Cluster,
  type Discovery,
  type ExtensionKind,
  type Filter,
  type Logger,
  type Scheduler,
  type Strategy,
} from '@swarm/plugin-sdk';
import type { WebExtension } from '@swarm/plugin-sdk/web';
import { createScheduler } from '../scheduler/index.js';
import { configError } from '../config/config-error.js';
import type { ResolvedConfig } from '../config/resolve.js';
import { registerLazy } from '../di/containers.js';
import { parseDiscoveryUri } from '../discovery/discovery-uri.js';
import { discoveryIdentity, MonitoredDiscovery } from '../discovery/monitored-discovery.js';
import { checkDiscoveryScheme, openDiscovery } from '../discovery/open-discovery.js';
import { PlacementJournal } from './placement-journal.js';
import { TypedEvents } from '../util/typed-events.js';
import { loadPluginSet } from './plugin-set.js';
import { providedName, type StagedProvider } from '../plugins/stage.js';
import type { LoadedPlugin } from '../plugins/loaded-plugin.js';
import { unlistedProviders } from '../plugins/installed-providers.js';
import type { ConfigOrigin } from '../config/layers.js';
import type { Deployment } from './deployment.js';
import { unknownProvider } from './unknown-provider.js';
import { named } from '../plugins/extension-kinds.js';
import { guardPlugin } from '../plugins/plugin-boundary.js';
import { pluginGuard, type GuardedKind } from '../plugins/plugin-guard.js';
import { DEFAULT_TIMEOUT_MS, ISOLATED_HOOK_LIMIT_MS } from '../plugins/call-limits.js';
import { IsolatedPlugin, isolatedFilter, isolatedStrategy } from '../plugins/isolation/isolated-host.js';
import type { CallMarks } from '../plugins/watchdog/call-marks.js';
import { CoreErrors } from '../errors.js';

export interface BuildDeploymentOptions {
  /** Plugins named in the config resolve from here (the config file's folder). */
  readonly configDir: string;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Where plugin calls are marked for the process's watchdog (the CLI's `manage` starts one). */
  readonly marks?: CallMarks;
}

const systemClock: Clock = { now: () => Date.now() };

const KIND_TOKENS: Readonly<Record<GuardedKind, ExtensionKind>> = {
  filter: Tokens.Filter,
  strategy: Tokens.Strategy,
  driver: Tokens.ClusterDriver,
  discovery: Tokens.DiscoveryBackend,
  authn: Tokens.Authenticator,
  authz: Tokens.Authorizer,
  admission: Tokens.AdmissionController,
};

/** `name@version` of the configured plugin that provides a filter, strategy, driver or discovery backend; none for built-ins. */
function providerLabel(staged: readonly StagedProvider[], kind: GuardedKind, name: string): string | undefined {
  const entry = providerEntry(staged, kind, name);
  if (!entry || entry.plugin.builtin) return undefined;
  return `${entry.plugin.manifest.name}@${entry.plugin.manifest.version}`;
}

function providerEntry(staged: readonly StagedProvider[], kind: GuardedKind, name: string): StagedProvider | undefined {
  const token = KIND_TOKENS[kind];
  return staged.find((candidate) => candidate.kind === token && candidate.name === name);
}

interface UnknownName {
  readonly kind: ExtensionKind;
  readonly name: string;
  readonly available: readonly string[];
  readonly origin: ConfigOrigin;
  readonly keyPath: string;
}

const ACCESS_KINDS = [
  ['authn', Tokens.Authenticator],
  ['authz', Tokens.Authorizer],
  ['admission', Tokens.AdmissionController],
] as const;

/** The access plugins the config names, each with its key path (`access.authz[1]`). */
function accessNames(resolved: ResolvedConfig): Array<Omit<UnknownName, 'available'>> {
  const access = resolved.config.access;
  if (!access) return [];
  return ACCESS_KINDS.flatMap(([key, kind]) =>
    access[key].map((entry, index) => ({
      kind,
      name: entry.name,
      keyPath: `access.${key}[${index}]`,
      origin: resolved.originOf('access'),
    })),
  );
}

/** The names in the config that no loaded plugin provides, in the config's order. */
function findUnknownNames(resolved: ResolvedConfig, available: (kind: ExtensionKind) => string[]): UnknownName[] {
  const { config, originOf } = resolved;
  const wanted: Array<Omit<UnknownName, 'available'>> = [
    { kind: Tokens.ClusterDriver, name: config.cluster.driver, keyPath: 'cluster.driver', origin: originOf('cluster.driver') },
    ...config.scheduler.filters.map((name, index) => ({
      kind: Tokens.Filter,
      name,
      keyPath: `scheduler.filters[${index}]`,
      origin: originOf('scheduler.filters'),
    })),
    { kind: Tokens.Strategy, name: config.scheduler.strategy, keyPath: 'scheduler.strategy', origin: originOf('scheduler.strategy') },
    ...Object.keys(config.web ?? {}).map((name) => ({
      kind: Tokens.WebExtension,
      name,
      keyPath: `web.${name}`,
      origin: originOf(`web.${name}`),
    })),
    ...accessNames(resolved),
  ];
  return wanted.flatMap((entry) => {
    const names = available(entry.kind);
    return names.includes(entry.name) ? [] : [{ ...entry, available: names }];
  });
}

/**
 * Refuses the names no loaded plugin provides, all of them at once, each saying which installed
 * plugin would provide it, if one does.
 */
async function checkNames(
  resolved: ResolvedConfig,
  set: { plugins: readonly LoadedPlugin[]; available: (kind: ExtensionKind) => string[] },
  configDir: string,
): Promise<void> {
  const unknown = findUnknownNames(resolved, set.available);
  if (unknown.length === 0) return;
  const loaded = new Set(set.plugins.map((plugin) => plugin.packageName));
  const installed = await unlistedProviders(configDir, loaded);
  const errors = unknown.map((entry) =>
    unknownProvider(
      entry.kind,
      entry.name,
      entry.available,
      entry.origin,
      entry.keyPath,
      installed.get(providedName(entry.kind, entry.name)),
    ),
  );
  if (errors.length === 1) throw errors[0]!;
  throw CoreErrors.unknownProviders(
    { lines: errors.map((error) => error.message) },
    { details: { errors: errors.map((error) => error.details) } },
  );
}

/**
 * Build a deployment: load the built-in and configured plugins, stage their registrations
 * (nothing is registered if any fails), check the configured names, then fill a fresh child
 * container. Services (scheduler, discovery, cluster) are created on first resolve.
 */
export async function buildDeployment(resolved: ResolvedConfig, options: BuildDeploymentOptions): Promise<Deployment> {
  const { config } = resolved;
  const schemes = config.cluster.discovery === '' ? [] : [parseDiscoveryUri(config.cluster.discovery).scheme];
  const set = await loadPluginSet(config.plugins, options.configDir, options.logger, {
    drivers: [config.cluster.driver],
    filters: config.scheduler.filters,
    strategies: [config.scheduler.strategy],
    discoverySchemes: schemes,
    web: Object.keys(config.web ?? {}),
    authn: config.access?.authn.map((entry) => entry.name),
    authz: config.access?.authz.map((entry) => entry.name),
    admission: config.access?.admission.map((entry) => entry.name),
  });
  await checkNames(resolved, set, options.configDir);

  const container = set.createContainer();
  const labelOf = (kind: GuardedKind, name: string) => providerLabel(set.staged, kind, name);
  const guard = pluginGuard(labelOf, options.logger, options.marks);
  /** A third-party driver or discovery backend, called through the plugin boundary (its entry's `timeout` or the kind's default); built-ins as they are. */
  const guarded = <T extends object>(plugin: T, kind: 'driver' | 'discovery', name: string): T => {
    if (labelOf(kind, name) === undefined) return plugin;
    const spec = providerEntry(set.staged, kind, name)?.plugin.spec;
    const timeoutMs = (spec === undefined ? undefined : resolved.pluginSettings?.get(spec)?.timeoutMs) ?? DEFAULT_TIMEOUT_MS[kind];
    return guardPlugin(plugin, kind, name, guard, timeoutMs);
  };
  const workers = new Map<LoadedPlugin, IsolatedPlugin>();
  /** A filter or strategy of a plugin whose entry says `isolate: true`, run in that plugin's worker thread. */
  function isolated(kind: 'filter', name: string): Filter | undefined;
  function isolated(kind: 'strategy', name: string): Strategy | undefined;
  function isolated(kind: 'filter' | 'strategy', name: string): Filter | Strategy | undefined {
    const plugin = providerEntry(set.staged, kind, name)?.plugin;
    const settings = plugin && !plugin.builtin ? resolved.pluginSettings?.get(plugin.spec) : undefined;
    if (!plugin || !settings?.isolate) return undefined;
    let worker = workers.get(plugin);
    if (!worker) {
      const limitMs = settings.timeoutMs ?? ISOLATED_HOOK_LIMIT_MS;
      worker = new IsolatedPlugin({ entry: plugin.entry, limitMs, guard, strategyOptions: config.scheduler.strategyOptions });
      workers.set(plugin, worker);
    }
    return kind === 'filter' ? isolatedFilter(name, worker) : isolatedStrategy(name, worker);
  }
  let opened: MonitoredDiscovery | undefined;
  // Only a deployment that serves a web view keeps its placements: nobody else reads them.
  const placements = Object.keys(config.web ?? {}).length > 0 ? new PlacementJournal() : undefined;
  container.register(Tokens.DeploymentConfig, { useValue: config });
  container.register(Tokens.ClusterOptions, { useValue: config.cluster.options });
  container.register(Tokens.StrategyOptions, { useValue: config.scheduler.strategyOptions });
  container.register(Tokens.Logger, { useValue: options.logger });
  container.register(Tokens.Clock, { useValue: options.clock ?? systemClock });
  container.register(Tokens.EventBus, { useValue: new TypedEvents<Record<string, (payload: unknown) => void>>() });
  registerLazy<Scheduler>(container, Tokens.Scheduler, (resolver) =>
    createScheduler(
      config.scheduler.filters.map((name) => isolated('filter', name) ?? resolver.resolve<Filter>(named(Tokens.Filter, name))),
      isolated('strategy', config.scheduler.strategy) ?? resolver.resolve<Strategy>(named(Tokens.Strategy, config.scheduler.strategy)),
      { logger: options.logger, onPlacement: placements?.record, guard },
    ),
  );
  registerLazy<Discovery>(container, Tokens.Discovery, (resolver) => {
    if (config.cluster.discovery === '') {
      throw configError(resolved.originOf('cluster.discovery'), 'cluster.discovery', 'discovery required to manage a cluster');
    }
    // Checked here, not up front: a driver may read the URI itself (mesos:// names a master).
    checkDiscoveryScheme(config.cluster.discovery, set.available(Tokens.DiscoveryBackend));
    const discovery = openDiscovery(
      resolver,
      config.cluster.discovery,
      { heartbeat: config.cluster.heartbeat, ttl: 0, options: config.cluster.discoveryOptions },
      (plugin, scheme) => guarded(plugin, 'discovery', scheme),
    );
    opened = new MonitoredDiscovery({ inner: discovery, uri: config.cluster.discovery, heartbeatMs: config.cluster.heartbeat * 1000 });
    return opened;
  });
  registerLazy<Cluster>(container, Tokens.Cluster, (resolver) =>
    guarded(resolver.resolve<Cluster>(named(Tokens.ClusterDriver, config.cluster.driver)), 'driver', config.cluster.driver),
  );

  const deployment: Deployment = {
    config,
    container,
    plugins: set.plugins,
    providers: set.staged,
    guard,
    builtinFailures: set.builtinFailures,
    available: set.available,
    cluster: () => container.resolve<Cluster>(Tokens.Cluster),
    scheduler: () => container.resolve<Scheduler>(Tokens.Scheduler),
    openedDiscovery: () => opened,
    discoveryStatus: () => opened?.status() ?? { ...discoveryIdentity(config.cluster.discovery), state: 'driver' },
    placements,
    webExtensions: () =>
      Object.entries(config.web ?? {}).map(([name, settings]) => ({
        name,
        settings,
        extension: container.resolve<WebExtension>(named(Tokens.WebExtension, name)),
      })),
  };
  isolatedAccess.set(deployment, (kind, name) => {
    const plugin = providerEntry(set.staged, kind, name)?.plugin;
    const settings = plugin && !plugin.builtin ? resolved.pluginSettings?.get(plugin.spec) : undefined;
    return plugin && settings?.isolate ? plugin.entry : undefined;
  });
  return deployment;
}

/** Kept beside the deployment rather than on its public type: which access plugins run isolated. */
const isolatedAccess = new WeakMap<Deployment, (kind: 'authn' | 'authz' | 'admission', name: string) => string | undefined>();

/** The entry file of the plugin that provides this access plugin when its `plugins` entry says `isolate: true`. */
export function isolatedAccessEntry(deployment: Deployment, kind: 'authn' | 'authz' | 'admission', name: string): string | undefined {
  return isolatedAccess.get(deployment)?.(kind, name);
}

/**
 * Throws unless the deployment's discovery is set (managing needs one; listing plugins does not),
 * or its cluster driver declared that it finds its nodes itself (`discovery: 'optional'`).
 * `cliCommand` words it as Swarm classic's CLI does; otherwise the key path leads.
 */
export function requireDiscovery(resolved: ResolvedConfig, providers: readonly StagedProvider[], cliCommand?: string): void {
  const { driver, discovery } = resolved.config.cluster;
  if (discovery !== '') return;
  const provider = providers.findLast((entry) => entry.kind === Tokens.ClusterDriver && entry.name === driver);
  if (provider?.driverOptions?.discovery === 'optional') return;
  if (cliCommand) {
    throw CoreErrors.discoveryRequired({ command: cliCommand });
  }
  throw configError('object', 'cluster.discovery', 'discovery required to manage a cluster');
}
