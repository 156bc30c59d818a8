/**
 * `@swarm/plugin-sdk/testing`: a test kit for plugin authors (filters, strategies, drivers, discovery). Nodes, containers and
 * images are plain data (`fakeNode`), configs are written as `docker run` flags (`runConfig`),
 * and cases are tables, in the style of ESLint's RuleTester:
 *
 * ```ts
 * import { it } from 'vitest';
 * import { fakeNode, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
 * import plugin from 'swarm-plugin-gpu';
 *
 * const gpu = pluginProviders(plugin).filter('gpu');
 * filterConformance(gpu, { it });
 * runFilterCases(gpu, [
 *   { config: { labels: { gpu: '1' } }, nodes: [fakeNode({ name: 'n1', labels: { gpus: '2' } }), fakeNode({ name: 'n2' })], pass: ['n1'], reasons: { n2: 'no gpu' } },
 * ], { it });
 * ```
 */
import 'reflect-metadata';

export * from './run-config.js';
export * from './fake-ids.js';
export * from './noop-logger.js';
export * from './fake-node.js';
export * from './plugin-providers.js';
export * from './checks.js';
export * from './evaluate.js';
export * from './filter-cases.js';
export * from './strategy-cases.js';
export * from './conformance.js';
export * from './discovery-conformance.js';
export * from './authz-conformance.js';
export * from './driver-conformance.js';
export * from './admission-conformance.js';
export * from './test-scheduler.js';
export * from './test-deployment.js';
