import { describe, it } from 'vitest';
import { fakeNode, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/filter-containerslots';

const slots = pluginProviders(plugin).filter('containerslots');

describe('containerslots filter', () => {
  filterConformance(slots, { it });

  runFilterCases(
    slots,
    [
      {
        name: 'a full node fails, stopped containers count',
        config: {},
        nodes: [
          fakeNode({ name: 'node1', labels: { containerslots: '2' }, containers: [{ name: 'a' }, { name: 'b', state: 'exited' }] }),
          fakeNode({ name: 'node2', labels: { containerslots: '2' }, containers: [{ name: 'c' }] }),
        ],
        pass: ['node2'],
        reasons: { node1: 'no available container slots' },
        conditions: ['available container slots'],
      },
      {
        name: 'a missing or non-integer label is ignored',
        config: {},
        nodes: [
          fakeNode({ name: 'node1', containers: [{ name: 'a' }] }),
          fakeNode({ name: 'node2', labels: { containerslots: 'foo' }, containers: [{ name: 'b' }] }),
          fakeNode({ name: 'node3', labels: { containerslots: '1.5' }, containers: [{ name: 'c' }, { name: 'd' }] }),
        ],
        pass: ['node1', 'node2', 'node3'],
      },
      {
        name: 'zero slots refuses everything',
        config: {},
        nodes: [fakeNode({ name: 'node1', labels: { containerslots: '0' } })],
        pass: [],
      },
    ],
    { it },
  );
});
