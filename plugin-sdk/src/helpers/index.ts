/**
 * `@swarm/plugin-sdk/helpers`: building blocks the built-in plugins use and third parties may
 * reuse. Swarm classic's expressions, labels and weighing, discovery parsing, the key-value store
 * layout, node snapshots, and the NodeTable implementation the host schedules with. Unlike the contract in
 * `@swarm/plugin-sdk`, these follow the SDK's version but are not what the host asks of a plugin.
 */
export { NodeColumns } from './node-columns.js';
export {
  formatExpression,
  parseExpression,
  parseExpressions,
  type Expression,
  type ExpressionOperator,
  type InvalidExpressionDetails,
} from './expressions.js';
export { conditionWithSoftness, createExpressionFilter, type ExpressionFilterSpec, type ExpressionMatcher } from './expression-filter.js';
export { rankByWeight, readResourceWeights, type ResourceWeights, type WeighingOptions } from './resource-weighing.js';
export { strategyOptionsFrom } from './strategy-options.js';
export {
  SWARM_LABEL_NAMESPACE,
  SwarmLabels,
  moveEnvDirectivesToLabels,
  requestedCpus,
  requestedMemory,
  swarmDirectives,
  type SwarmDirective,
} from './swarm-labels.js';
export { reschedulePolicy, type ReschedulePolicy } from './reschedule-policies.js';
export { repositoryOf } from './image-reference.js';
export { memoizeBySnapshot, readSnapshot, SnapshotVersions } from './node-snapshot.js';
export { bytesSize, humanDuration } from './units.js';
export { nodeInfoRows, type NodeRowFacts } from './node-rows.js';
export { expandDiscoveryRange, parseDiscoveryEntry, parseDiscoveryList } from './discovery-addresses.js';
export {
  EntrySetDeduper,
  KV_NODES_PATH,
  KvDiscoveryOptions,
  SerialRetryTask,
  collectEntries,
  joinKeyPath,
  parseKvDiscovery,
  storeRetryDelayMs,
  type KvDiscoveryTarget,
  type KvTlsMaterial,
} from './kv-discovery.js';
export { LEADER_ELECTION_PATH, distinctLeaderUpdates } from './leadership.js';
export { SdkErrors, asError } from '../errors.js';
export { parseDuration, formatDuration } from './duration.js';
export {
  EngineClient,
  endpointLabel,
  engineAnswerError,
  engineHostHeader,
  engineMessage,
  isEngineUnreachable,
  type EngineCall,
  type EngineClientOptions,
  type EngineQuery,
  type EngineRead,
  type EngineReadOptions,
  type EngineRequestInit,
} from './engine/engine-client.js';
export { CallSlots } from './engine/call-slots.js';
export { readJsonLines, type JsonLinesHandlers } from './engine/json-lines.js';
export { engineLabels, type EngineInfoLabels } from './engine/engine-labels.js';
export { eventNode, nodeAttributes, withNode } from './engine/node-events.js';
export { readEngineTls, type EngineTls } from './engine/engine-tls.js';
