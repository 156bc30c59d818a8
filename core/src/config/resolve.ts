import { resolvePluginEntries, resolveWatchdog, type PluginEntrySettings } from './plugin-entries.js';
import type { DeploymentConfig, TlsFiles } from '@swarm/plugin-sdk';
import { isWebExtensionName } from '../util/web-extension-names.js';
import type { WebSettings } from '@swarm/plugin-sdk/web';
import { configError } from './config-error.js';
import { Defaults } from './defaults.js';
import { parseDuration } from './duration.js';
import type { DurationInput, OptionValue, SwarmConfigInput, WebExtensionInput } from './input.js';
import { pick, type ConfigLayer, type ConfigOrigin } from './layers.js';
import { resolveAccess } from './resolve-access.js';

/** A resolved config plus where each of its values came from, for later error messages. */
export interface ResolvedConfig {
  readonly config: DeploymentConfig;
  /** Origin of a top-level setting, by key path (`scheduler.filters`, `cluster.driver`, ...). */
  originOf(keyPath: string): ConfigOrigin;
  /** Each plugin entry's settings (`plugins: [['x', { timeout, isolate }]]`), by the name in `plugins`. */
  readonly pluginSettings?: ReadonlyMap<string, PluginEntrySettings>;
  /** `watchdog.limit` in ms when set (0: off). */
  readonly watchdogMs?: number;
}

const ADDR_FORMAT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

/** Swarm classic's checkAddrFormat: `ip:port` or `hostname:port`. */
export function isAddrFormat(addr: string): boolean {
  return ADDR_FORMAT.test(addr);
}

function seconds(
  layers: readonly ConfigLayer[],
  keyPath: string,
  flag: string,
  read: (i: SwarmConfigInput) => DurationInput | undefined,
  fallback: number,
): { value: number; origin: ConfigOrigin } {
  const picked = pick(layers, read);
  if (!picked) return { value: fallback, origin: 'defaults' };
  try {
    return { value: parseDuration(picked.value), origin: picked.origin };
  } catch (error) {
    const reason = (error as Error).message;
    // flags keep Swarm classic's wording; a config file or the environment gets an example too
    throw configError(
      picked.origin,
      keyPath,
      picked.origin === 'flags'
        ? `invalid ${flag}: ${reason}`
        : `${reason} (write a duration such as "30s", "1m30s" or "500ms", or a number of seconds)`,
    );
  }
}

function stringOptions(options: Readonly<Record<string, OptionValue>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(options ?? {})) out[key] = String(value);
  return out;
}

/** Options maps merge key by key, later layers winning. */
function mergedOptions<T>(
  layers: readonly ConfigLayer[],
  read: (i: SwarmConfigInput) => Readonly<Record<string, T>> | undefined,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const layer of layers) Object.assign(out, read(layer.input) ?? {});
  return out;
}

function apiHosts(input: SwarmConfigInput): string[] | undefined {
  const api = input.api;
  if (!api) return undefined;
  if (api.hosts) return api.hosts;
  if (api.host !== undefined) return Array.isArray(api.host) ? api.host : [api.host];
  return undefined;
}

function resolveTls(layers: readonly ConfigLayer[]): TlsFiles | undefined {
  const picked = pick(layers, (input) => input.tls);
  if (!picked) return undefined;
  const tls = picked.value;
  if (!tls.cert || !tls.key) throw configError(picked.origin, 'tls', '--tlscert and --tlskey must be provided when using --tls');
  if (tls.verify && !tls.ca) throw configError(picked.origin, 'tls.ca', '--tlscacert must be provided when using --tlsverify');
  return { ca: tls.ca, cert: tls.cert, key: tls.key, verify: tls.verify ?? false };
}

/**
 * The web extensions to mount: `web` entries and the `ui` shorthand of every layer, later layers
 * winning per name (`false` unmounts what a lower layer mounted). Records each name's origin.
 */
function resolveWeb(layers: readonly ConfigLayer[], origins: Map<string, ConfigOrigin>): WebSettings {
  const web: Record<string, Readonly<Record<string, OptionValue>>> = {};
  const set = (name: string, value: boolean | WebExtensionInput, origin: ConfigOrigin, keyPath: string): void => {
    if (!isWebExtensionName(name)) {
      throw configError(
        origin,
        keyPath,
        `invalid web extension name "${name}": use lower-case letters, digits and dashes, and none of Docker's /swarm/ operations (init, join, leave, update, unlock, unlockkey)`,
      );
    }
    origins.set(`web.${name}`, origin);
    if (value === false) delete web[name];
    else web[name] = value === true ? {} : { ...value };
  };
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer.input.web ?? {})) set(name, value, layer.origin, `web.${name}`);
    if (layer.input.ui !== undefined) set('ui', layer.input.ui, layer.origin, 'ui');
  }
  return web;
}

/**
 * Merge the layers (lowest precedence first: file, then flags) over Swarm classic's defaults and
 * check the values the way `swarm manage` does. Plugin-dependent checks (known filter names)
 * happen when the deployment is built.
 */
export function resolveConfig(layers: readonly ConfigLayer[]): ResolvedConfig {
  const origins = new Map<string, ConfigOrigin>();
  const track = <T>(keyPath: string, picked: { value: T; origin: ConfigOrigin } | undefined, fallback: T): T => {
    origins.set(keyPath, picked?.origin ?? 'defaults');
    return picked ? picked.value : fallback;
  };

  const heartbeat = seconds(layers, 'cluster.heartbeat', '--heartbeat', (i) => i.cluster?.heartbeat, Defaults.heartbeatSeconds);
  if (heartbeat.value < 1) throw configError(heartbeat.origin, 'cluster.heartbeat', '--heartbeat should be at least one second');
  const refreshMin = seconds(
    layers,
    'cluster.engineRefreshMinInterval',
    '--engine-refresh-min-interval',
    (i) => i.cluster?.engineRefreshMinInterval,
    Defaults.engineRefreshMinSeconds,
  );
  if (refreshMin.value <= 0)
    throw configError(refreshMin.origin, 'cluster.engineRefreshMinInterval', 'min refresh interval should be a positive number');
  const refreshMax = seconds(
    layers,
    'cluster.engineRefreshMaxInterval',
    '--engine-refresh-max-interval',
    (i) => i.cluster?.engineRefreshMaxInterval,
    Defaults.engineRefreshMaxSeconds,
  );
  if (refreshMax.value < refreshMin.value) {
    // Point at whichever of the two was set (the max when both were).
    const [origin, keyPath] =
      refreshMax.origin === 'defaults'
        ? [refreshMin.origin, 'cluster.engineRefreshMinInterval']
        : [refreshMax.origin, 'cluster.engineRefreshMaxInterval'];
    throw configError(origin, keyPath, 'max refresh interval cannot be less than min refresh interval');
  }
  const retryPicked = pick(layers, (i) => i.cluster?.engineFailureRetry);
  const failureRetry = track('cluster.engineFailureRetry', retryPicked, Defaults.engineFailureRetry);
  if (failureRetry <= 0) throw configError(retryPicked?.origin ?? 'defaults', 'cluster.engineFailureRetry', 'invalid failure retry count');

  const enabledPicked = pick(layers, (i) => i.replication?.enabled);
  const replicationEnabled = track('replication.enabled', enabledPicked, false);
  const advertisePicked = pick(layers, (i) => i.replication?.advertise);
  const advertise = track('replication.advertise', advertisePicked, undefined);
  const ttl = seconds(layers, 'replication.ttl', '--replication-ttl', (i) => i.replication?.ttl, Defaults.replicationTtlSeconds);
  const shutdownTimeout = seconds(
    layers,
    'api.shutdownTimeout',
    '--shutdown-timeout',
    (i) => i.api?.shutdownTimeout,
    Defaults.shutdownTimeoutSeconds,
  );
  if (shutdownTimeout.value < 0)
    throw configError(shutdownTimeout.origin, 'api.shutdownTimeout', '--shutdown-timeout should not be negative');
  origins.set('api.shutdownTimeout', shutdownTimeout.origin);
  const readyMinPicked = pick(layers, (i) => i.api?.readyMinNodes);
  const readyMinNodes = track('api.readyMinNodes', readyMinPicked, Defaults.readyMinNodes);
  if (!Number.isSafeInteger(readyMinNodes) || readyMinNodes < 0)
    throw configError(
      readyMinPicked?.origin ?? 'defaults',
      'api.readyMinNodes',
      `--ready-min-nodes must be a whole number of nodes, 0 or more; ${readyMinNodes} is invalid`,
    );
  if (replicationEnabled) {
    if (!advertise)
      throw configError(
        enabledPicked?.origin ?? 'defaults',
        'replication.advertise',
        '--advertise address must be provided when using --leader-election',
      );
    if (ttl.value <= 0) throw configError(ttl.origin, 'replication.ttl', '--replication-ttl should be a positive number');
  }
  if (advertise !== undefined && !isAddrFormat(advertise)) {
    throw configError(
      advertisePicked?.origin ?? 'defaults',
      'replication.advertise',
      '--advertise should be of the form ip:port or hostname:port',
    );
  }

  const tls = resolveTls(layers);
  const { names: plugins, settings: pluginSettings } = resolvePluginEntries(layers);
  const watchdogMs = resolveWatchdog(layers);

  const config: DeploymentConfig = {
    plugins,
    cluster: {
      driver: track(
        'cluster.driver',
        pick(layers, (i) => i.cluster?.driver),
        Defaults.driver,
      ),
      discovery: track(
        'cluster.discovery',
        pick(layers, (i) => i.cluster?.discovery),
        '',
      ),
      options: stringOptions(mergedOptions(layers, (i) => i.cluster?.options)),
      discoveryOptions: mergedOptions(layers, (i) => i.cluster?.discoveryOptions),
      heartbeat: heartbeat.value,
      engineRefreshMinInterval: refreshMin.value,
      engineRefreshMaxInterval: refreshMax.value,
      engineFailureRetry: failureRetry,
      tls,
    },
    scheduler: {
      filters: track(
        'scheduler.filters',
        pick(layers, (i) => i.scheduler?.filters),
        [...Defaults.filters],
      ),
      strategy: track(
        'scheduler.strategy',
        pick(layers, (i) => i.scheduler?.strategy),
        Defaults.strategy,
      ),
      strategyOptions: mergedOptions(layers, (i) => i.scheduler?.strategyOptions),
    },
    api: {
      hosts: track('api.hosts', pick(layers, apiHosts), [Defaults.host]),
      tls,
      cors: track(
        'api.cors',
        pick(layers, (i) => i.api?.cors),
        false,
      ),
      shutdownTimeout: shutdownTimeout.value,
      readyMinNodes,
    },
    replication: { enabled: replicationEnabled, advertise, ttl: ttl.value },
    web: resolveWeb(layers, origins),
    logLevel: track(
      'logLevel',
      pick(layers, (i) => i.logLevel),
      Defaults.logLevel,
    ),
    access: resolveAccess(layers),
  };
  return {
    config,
    originOf: (keyPath) => origins.get(keyPath) ?? 'defaults',
    pluginSettings,
    ...(watchdogMs !== undefined ? { watchdogMs } : {}),
  };
}
