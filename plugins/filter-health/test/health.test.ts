import { describe, expect, it } from 'vitest';
import { Tokens } from '@swarm/plugin-sdk';
import { NodeColumns } from '@swarm/plugin-sdk/helpers';
import { fakeNode, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/filter-health';

const providers = pluginProviders(plugin);
const health = providers.filter('health');

describe('health filter', () => {
  it('registers one filter named health', () => {
    expect(providers.names(Tokens.Filter)).toEqual(['health']);
    expect(health.name).toBe('health');
  });

  filterConformance(health, { it });

  runFilterCases(
    health,
    [
      {
        name: 'keeps healthy nodes only',
        config: {},
        nodes: [
          fakeNode({ name: 'node1' }),
          fakeNode({ name: 'node2', healthy: false }),
          fakeNode({ name: 'node3', status: 'disconnected' }),
        ],
        pass: ['node1'],
        reasons: { node2: 'node unhealthy', node3: 'node unhealthy' },
        conditions: [],
      },
    ],
    { it },
  );

  it("answers Swarm classic's text when it leaves no node", () => {
    expect(
      health.prepare({ config: { Image: 'x' }, name: undefined, cpus: 0, memory: 0, soft: true }, NodeColumns.of([]))?.refusalMessage,
    ).toBe('No healthy node available in the cluster');
  });
});
