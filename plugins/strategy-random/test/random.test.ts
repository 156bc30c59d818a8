import { describe, expect, it } from 'vitest';
import { fakeNodes, placementRequest, pluginProviders, strategyConformance } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/strategy-random';

const GiB = 1024 ** 3;
const providers = pluginProviders(plugin);
const nodes = fakeNodes(5);
const firstNames = (seed: number | undefined, rounds: number): string[] => {
  const random = providers.strategy('random', seed === undefined ? {} : { seed });
  return Array.from({ length: rounds }, () => random.rank(placementRequest({}), nodes)[0]!.node.name);
};

describe('random strategy', () => {
  strategyConformance(providers.strategy('random'), { it }, { checksResources: false });

  it('ranks every node once, whatever the request (resources are not considered, as in Swarm classic)', () => {
    const ranked = providers.strategy('random').rank(placementRequest({ memory: 100 * GiB }), nodes);
    expect(ranked.map((entry) => entry.node.name).sort()).toEqual(['node1', 'node2', 'node3', 'node4', 'node5']);
  });

  it('spreads its choices over the nodes', () => {
    expect(new Set(firstNames(undefined, 200)).size).toBe(5);
  });

  it('repeats its sequence for the same seed', () => {
    expect(firstNames(42, 20)).toEqual(firstNames(42, 20));
    expect(firstNames(42, 20)).not.toEqual(firstNames(7, 20));
  });

  it('with a limit, returns the first nodes of the same shuffle', () => {
    const many = fakeNodes(40);
    for (const limit of [1, 3, 8]) {
      const full = providers.strategy('random', { seed: 5 }).rank(placementRequest({}), many);
      const limited = providers.strategy('random', { seed: 5 }).rank(placementRequest({}), many, limit);
      expect(limited).toEqual(full.slice(0, limit));
    }
  });

  it('refuses bad options', () => {
    expect(() => providers.strategy('random', { seed: 'abc' })).toThrow('strategy "random": option seed must be an integer, got "abc"');
    expect(() => providers.strategy('random', { speed: 1 })).toThrow('strategy "random": unknown option "speed"; known options: seed');
  });
});
