// The tools that test hollow engines against real ones; the engines themselves are `@swarm/core/hollow`.
export { EngineClient, type HttpAnswer } from './http-client.js';
export { shapeDifferences, kindOf, type JsonKind } from './shape.js';
export { EventRecorder } from './event-recorder.js';
