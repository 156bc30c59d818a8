import 'reflect-metadata';

export * from './run-config.js';
export * from './fake-ids.js';
export * from './fake-node.js';
export * from './plugin-providers.js';
export * from './checks.js';
export * from './evaluate.js';
export * from './filter-cases.js';
export * from './strategy-cases.js';
export * from './conformance.js';
