import { describe, expect, it } from 'vitest';
import { NodeColumns } from '@swarm/plugin-sdk/helpers';
import { fakeNode, filterConformance, placementRequest, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
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

  it('names the labelled rows to check when few nodes carry the label, and none when most do', () => {
    const cluster = (labelled: number) =>
      Array.from({ length: 16 }, (_, i) =>
        fakeNode({ name: `node${i + 1}`, labels: i < labelled ? { containerslots: '1' } : {}, containers: [{ name: `c${i}` }] }),
      );
    const rowsToCheck = (labelled: number) => {
      const nodes = cluster(labelled);
      return slots.prepare(placementRequest({}), NodeColumns.of(nodes))?.rowsToCheck;
    };
    expect(rowsToCheck(0)).toEqual([]);
    expect(rowsToCheck(2)).toEqual([0, 1]);
    expect(rowsToCheck(16)).toBeUndefined();
  });
});
