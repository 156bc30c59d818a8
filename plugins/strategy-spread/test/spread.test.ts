import { describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError, type Node } from '@swarm/plugin-sdk';
import { fakeNode, placementRequest, pluginProviders, runStrategyCases, strategyConformance } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/strategy-spread';

const GiB = 1024 ** 3;
const providers = pluginProviders(plugin);
const spread = providers.strategy('spread');

/** Place `count` containers of `memory` bytes one by one on 4 GiB nodes; how many land where. */
function placeMany(count: number, memory: number, names: string[]): Record<string, number> {
  const placed: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  for (let i = 0; i < count; i++) {
    const nodes: Node[] = names.map((name) =>
      fakeNode({ name, memory: 4 * GiB, containers: Array.from({ length: placed[name]! }, (_, c) => ({ name: `c${c}`, memory })) }),
    );
    placed[spread.rank(placementRequest({ memory }), nodes)[0]!.node.name]!++;
  }
  return placed;
}

describe('spread strategy', () => {
  strategyConformance(spread, { it });

  runStrategyCases(
    spread,
    [
      {
        name: 'least reserved memory first; score = cpu + memory − 10 × health',
        config: { memory: GiB },
        nodes: [fakeNode({ name: 'node1', containers: [{ name: 'a', memory: 2 * GiB }] }), fakeNode({ name: 'node2' })],
        order: ['node2', 'node1'],
        scores: { node2: 100 + 25 - 1000, node1: 100 + 75 - 1000 },
      },
      {
        name: 'ties go to the node with fewer containers',
        config: {},
        nodes: [
          fakeNode({ name: 'node1', containers: [{ name: 'a' }, { name: 'b', state: 'exited' }] }),
          fakeNode({ name: 'node2', containers: [{ name: 'c' }] }),
        ],
        order: ['node2', 'node1'],
      },
      {
        name: 'healthier nodes first',
        config: {},
        nodes: [fakeNode({ name: 'node1', healthIndicator: 40 }), fakeNode({ name: 'node2', healthIndicator: 100 })],
        order: ['node2', 'node1'],
      },
      {
        name: 'nodes that cannot hold the request are left out',
        config: { cpus: 2, memory: GiB },
        nodes: [
          fakeNode({ name: 'small', cpus: 1 }),
          fakeNode({ name: 'busy', cpus: 2, containers: [{ name: 'a', cpus: 1 }] }),
          fakeNode({ name: 'free', cpus: 2 }),
        ],
        order: ['free'],
      },
      {
        name: 'a memory over-ask is refused',
        config: { memory: 5 * GiB },
        nodes: [fakeNode({ name: 'node1' })],
        throws: 'no resources available to schedule container',
      },
      {
        name: 'a CPU over-ask is refused',
        config: { cpus: 5 },
        nodes: [fakeNode({ name: 'node1' })],
        throws: 'no resources available to schedule container',
      },
    ],
    { it },
  );

  it('spreads six 1 GiB containers 2-2-2 over three nodes', () => {
    expect(placeMany(6, GiB, ['node1', 'node2', 'node3'])).toEqual({ node1: 2, node2: 2, node3: 2 });
  });

  it('takes cpuWeight and memoryWeight options, validated', () => {
    const memoryOnly = providers.strategy('spread', { cpuWeight: '0', memoryWeight: 2 });
    const ranked = memoryOnly.rank(placementRequest({ cpus: 1, memory: GiB }), [fakeNode({ name: 'node1' })]);
    expect(ranked[0]!.score).toBe(0 * 25 + 2 * 25 - 1000);
    const refusal = (options: Record<string, string | number>) => {
      try {
        providers.strategy('spread', options);
      } catch (error) {
        expect(isSwarmError(error, ErrorCodes.CONFIG_INVALID)).toBe(true);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ cpuWeight: 'heavy' })).toBe('strategy "spread": option cpuWeight must be a number >= 0, got "heavy"');
    expect(refusal({ memoryWeight: -1 })).toBe('strategy "spread": option memoryWeight must be a number >= 0, got -1');
    expect(refusal({ cpuWeight: 0, memoryWeight: 0 })).toBe('strategy "spread": cpuWeight and memoryWeight cannot both be 0');
    expect(refusal({ weight: 1 })).toBe('strategy "spread": unknown option "weight"; known options: cpuWeight, memoryWeight');
  });
});
