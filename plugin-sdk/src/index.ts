/**
 * `@swarm/plugin-sdk`: the plugin contract. The interfaces a plugin implements (Cluster, Node,
 * Filter, Strategy, DiscoveryBackend, LeaderElection), the data they exchange, `definePlugin`, the
 * DI tokens and coded errors; at most 80 names (scripts/api-report.mjs holds the budget). The
 * Docker wire types live in `@swarm/plugin-sdk/docker`, the web-extension types in
 * `@swarm/plugin-sdk/web`, helpers in `@swarm/plugin-sdk/helpers`, the test kit in
 * `@swarm/plugin-sdk/testing`.
 */
export { PLUGIN_API_VERSION } from './version.js';
export {
  ErrorCodes,
  SwarmError,
  defineError,
  isSwarmError,
  type ErrorCode,
  type ErrorFactory,
  type ErrorSpec,
  type RaiseOptions,
  type SwarmErrorOptions,
} from './errors.js';
export { Tokens, type ExtensionKind } from './tokens.js';
export type { Container, EngineEndpoint, Image, Network, Node, NodeSnapshot, NodeStatus, Volume } from './node.js';
export type { NodeTable } from './node-table.js';
export type * from './cluster.js';
export {
  PASS,
  fail,
  type Filter,
  type FilterRun,
  type FilterVerdict,
  type FilterVerdictRecord,
  type NodeExplanation,
  type Placement,
  type PlacementExplanation,
  type PlacementRequest,
  type RankedNode,
  type Scheduler,
  type Strategy,
  type StrategyOptions,
} from './scheduler.js';
export type { Discovery, DiscoveryBackend, DiscoveryEntry, DiscoveryOptions, DiscoveryWatcher } from './discovery.js';
export type { Campaign, CampaignHandlers, LeaderElection, LeaderFollower } from './leadership.js';
export {
  definePlugin,
  type DriverOptions,
  type PluginContext,
  type PluginDefinition,
  type PluginManifest,
  type Provider,
  type Resolver,
} from './plugin.js';
export type { Clock, Logger } from './logger.js';
export type * from './config.js';
