import { describe, expect, it } from 'vitest';
import { Tokens, type Node } from '@swarm/plugin-sdk';
import { fakeNode, placementRequest, pluginProviders, runStrategyCases, strategyConformance } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/strategy-binpack';

const GiB = 1024 ** 3;
const providers = pluginProviders(plugin);
const binpack = providers.strategy('binpack');

describe('binpack strategy', () => {
  it('registers binpack and its alias binpacking', () => {
    expect(providers.names(Tokens.Strategy)).toEqual(['binpack', 'binpacking']);
    expect(providers.strategy('binpacking').name).toBe('binpacking');
  });

  strategyConformance(binpack, { it });
  strategyConformance(providers.strategy('binpacking'), { it });

  runStrategyCases(
    binpack,
    [
      {
        name: 'most reserved node that still fits first; score = cpu + memory + 10 × health',
        config: { memory: GiB },
        nodes: [fakeNode({ name: 'node1' }), fakeNode({ name: 'node2', containers: [{ name: 'a', memory: 2 * GiB }] })],
        order: ['node2', 'node1'],
        scores: { node2: 100 + 75 + 1000, node1: 100 + 25 + 1000 },
      },
      {
        name: 'a node that would go over 100% is left out',
        config: { memory: 2 * GiB },
        nodes: [fakeNode({ name: 'node1' }), fakeNode({ name: 'node2', containers: [{ name: 'a', memory: 3 * GiB }] })],
        order: ['node1'],
      },
      {
        name: 'ties go to the node with more containers',
        config: {},
        nodes: [fakeNode({ name: 'node1' }), fakeNode({ name: 'node2', containers: [{ name: 'a' }] })],
        order: ['node2', 'node1'],
      },
      {
        name: 'healthier nodes first',
        config: {},
        nodes: [fakeNode({ name: 'node1', healthIndicator: 40 }), fakeNode({ name: 'node2' })],
        order: ['node2', 'node1'],
      },
      {
        name: 'an over-ask is refused',
        config: { memory: 8 * GiB },
        nodes: [fakeNode({ name: 'node1' })],
        throws: 'no resources available to schedule container',
      },
    ],
    { it },
  );

  it('fills one node before the next with six 1 GiB containers', () => {
    const placed: Record<string, number> = { node1: 0, node2: 0, node3: 0 };
    for (let i = 0; i < 6; i++) {
      const nodes: Node[] = Object.keys(placed).map((name) =>
        fakeNode({ name, memory: 4 * GiB, containers: Array.from({ length: placed[name]! }, (_, c) => ({ name: `c${c}`, memory: GiB })) }),
      );
      placed[binpack.rank(placementRequest({ memory: GiB }), nodes)[0]!.node.name]!++;
    }
    expect(Object.values(placed).sort()).toEqual([0, 2, 4]);
  });

  it('refuses bad options with the strategy name', () => {
    expect(() => providers.strategy('binpacking', { cpuWeight: 'x' })).toThrow(
      'strategy "binpacking": option cpuWeight must be a number >= 0, got "x"',
    );
  });
});
