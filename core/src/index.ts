// The public API of @swarm/core for hosts that embed swarm.
export { createSwarm, type CreateSwarmOptions } from './embedding/create-swarm.js';
export type { Swarm, SwarmEvents, StartOptions } from './embedding/swarm.js';
export type {
  SwarmConfigInput,
  TlsInput,
  OptionValue,
  DurationInput,
  WebExtensionInput,
  AccessInput,
  AccessEntryInput,
  AccessCallInput,
  PluginEntryInput,
} from './config/input.js';
export type { PluginEntrySettings } from './config/plugin-entries.js';
export { loadConfigFile, CONFIG_SEARCH_PLACES, type LoadedConfigFile, type LoadConfigOptions } from './config/load.js';
export { resolveConfig, type ResolvedConfig } from './config/resolve.js';
export type { ConfigLayer, ConfigOrigin } from './config/layers.js';
export { validateConfigShape } from './config/schema.js';
export { parseDuration } from './config/duration.js';
export { Defaults, DEFAULT_FILTERS } from './config/defaults.js';
export { loadPlugins, resolvePlugin, importPlugin, importManifest, type PluginLocation } from './plugins/load.js';
export { checkApiVersion, isApiCompatible } from './plugins/manifest.js';
export { candidatePackages } from './plugins/candidates.js';
export { PackageFinder, type LocatedPlugin, type PackageJson } from './plugins/locate.js';
export { builtinPackageNames, loadBuiltins, type Builtins, type BuiltinFailure } from './plugins/builtins.js';
export { stagePlugins, type StagedProvider } from './plugins/stage.js';
export type { LoadedPlugin } from './plugins/loaded-plugin.js';
export type { PluginGuard, PluginCallSink, GuardedKind, CallOutcome, FaultSite } from './plugins/plugin-guard.js';
export { CallMarks } from './plugins/watchdog/call-marks.js';
export { WATCHDOG_EXIT_STATUS } from './plugins/watchdog/watchdog.js';
export { buildDeployment, type BuildDeploymentOptions } from './deployment/build-deployment.js';
export type { ConfiguredWebExtension, Deployment } from './deployment/deployment.js';
export type { PlacementJournal, PlacementJournalOptions } from './deployment/placement-journal.js';
export { createLogger, type LogFormat, type LoggerOptions } from './logging/create-logger.js';
export { SWARM_VERSION } from './version.js';
export { createScheduler, type PlacementOutcome, type SchedulerOptions } from './scheduler/index.js';
export { SwarmError, ErrorCodes, isSwarmError, type ErrorCode } from '@swarm/plugin-sdk';
