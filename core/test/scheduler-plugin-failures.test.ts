import { describe, expect, it } from 'vitest';
import { ErrorCodes, PASS, isSwarmError, type Filter, type Strategy } from '@swarm/plugin-sdk';
import { fakeNodes, runConfig } from '@swarm/plugin-sdk/testing';
import { createScheduler } from '../dist/scheduler/index.js';
import { recordingLogger } from './api-recording-logger.js';
import { defaultFilters, strategy } from './scheduler-support.js';

const nodes = fakeNodes([{ name: 'node1', labels: { gpu: 'a100' } }, { name: 'node2' }]);

/** A third-party filter with a bug: it reads a label only some nodes have. */
const gpuFilter: Filter = {
  name: 'gpu',
  prepare: () => ({
    conditions: ['node has a GPU'],
    check: (node) => (node.labels()['gpu']!.toUpperCase() === 'A100' ? PASS : PASS),
  }),
};

function failure(run: () => unknown): { code: string; status: number; message: string } {
  try {
    run();
  } catch (error) {
    if (!isSwarmError(error)) throw error;
    return { code: error.code, status: error.httpStatus, message: error.message };
  }
  throw new Error('no failure');
}

describe('a plugin that throws at a placement', () => {
  it('fails the placement with a 500 naming the filter and its package, logged once a minute', () => {
    const logger = recordingLogger();
    const scheduler = createScheduler([...defaultFilters(), gpuFilter], strategy('spread'), {
      logger,
      pluginOf: (kind, name) => (kind === 'filter' && name === 'gpu' ? 'swarm-plugin-gpu@0.1.0' : undefined),
    });
    const request = scheduler.request(runConfig({}));
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(failure(() => scheduler.select(request, nodes))).toEqual({
        code: ErrorCodes.PLUGIN_FAILED,
        status: 500,
        message: `filter "gpu" (swarm-plugin-gpu@0.1.0) failed in check() on node "node2": Cannot read properties of undefined (reading 'toUpperCase')`,
      });
    }
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toMatchObject({ kind: 'filter', name: 'gpu', plugin: 'swarm-plugin-gpu@0.1.0' });
    expect(errors[0]!.fields['err']).toBeInstanceOf(TypeError);
    // an explanation (swarm schedule --explain) says the same, and places nothing
    const explanation = scheduler.explain(request, nodes);
    expect(explanation.error).toContain('filter "gpu" (swarm-plugin-gpu@0.1.0) failed');
    expect(explanation.nodes.every((node) => !node.feasible)).toBe(true);
  });

  it('names a strategy that throws, and a filter whose prepare throws; a built-in is named as such', () => {
    const broken: Strategy = {
      name: 'fewest-containers',
      rank: () => {
        throw new RangeError('Invalid array length');
      },
    };
    const scheduler = createScheduler(defaultFilters(), broken, { pluginOf: () => 'swarm-plugin-fewest@2.0.0' });
    expect(failure(() => scheduler.select(scheduler.request(runConfig({})), nodes)).message).toBe(
      'strategy "fewest-containers" (swarm-plugin-fewest@2.0.0) failed in rank(): Invalid array length',
    );
    const preparing: Filter = {
      name: 'gpu',
      prepare: () => {
        throw new Error('no GPU table');
      },
    };
    const plain = createScheduler([preparing], strategy('spread'));
    expect(failure(() => plain.select(plain.request(runConfig({})), nodes)).message).toBe(
      'filter "gpu" (built-in) failed in prepare(): no GPU table',
    );
  });
});
