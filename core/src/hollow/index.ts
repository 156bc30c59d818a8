export { HollowEngine, type HollowEngineOptions } from './engine.js';
export { startHollowCluster, slotAddress, type HollowCluster, type HollowClusterOptions } from './cluster.js';
export { MEASURED_DELAYS, resolveDelays, type DelayOption } from './default-delays.js';
export { CALL_KINDS, type CallKind, type CallDelays } from './call-kinds.js';
export { EngineClient, type HttpAnswer } from './http-client.js';
export { shapeDifferences, kindOf, type JsonKind } from './shape.js';
export { EventRecorder } from './event-recorder.js';
