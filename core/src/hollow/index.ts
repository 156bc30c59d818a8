// Hollow Docker engines: imitation engines (API 1.41, dockerd 20.10's answers) with their state in
// memory, many in one process. `swarm sandbox` runs a manager in front of them; the scale and web
// view benchmarks and the tests (`@swarm/core/hollow`) use them where real engines would be too many.
export { HollowEngine, type HollowEngineOptions } from './engine.js';
export { startHollowCluster, slotAddress, type HollowCluster, type HollowClusterOptions } from './cluster.js';
export { MEASURED_DELAYS, resolveDelays, type DelayOption } from './default-delays.js';
export { CALL_KINDS, type CallKind, type CallDelays } from './call-kinds.js';
export { humanDuration, rfc3339Nano } from './clock.js';
export type { Reply, Route, RouteContext } from './route-types.js';
export type { EngineState } from './state.js';
