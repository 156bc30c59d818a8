import 'reflect-metadata';

export { inject, injectable, singleton } from 'tsyringe';

export * from './version.js';
export * from './errors.js';
export * from './tokens.js';
export * from './types/docker.js';
export * from './node.js';
export * from './node-table.js';
export * from './cluster.js';
export * from './scheduler.js';
export * from './discovery.js';
export * from './kv-discovery.js';
export * from './leadership.js';
export * from './plugin.js';
export * from './logger.js';
export * from './config.js';
export * from './swarm-labels.js';
export * from './discovery-addresses.js';
export * from './expressions.js';
export * from './resource-weighing.js';
export * from './placement-request.js';
export * from './expression-filter.js';
export * from './image-reference.js';
export * from './strategy-options.js';
export * from './list-memo.js';
export * from './reschedule-policies.js';
export * from './units.js';
