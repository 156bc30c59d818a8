import { describe, it } from 'vitest';
import { fakeNodes, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/filter-whitelist';

const whitelist = pluginProviders(plugin).filter('whitelist');
const nodes = fakeNodes(3);

describe('whitelist filter', () => {
  filterConformance(whitelist, { it });

  runFilterCases(
    whitelist,
    [
      {
        name: '|-separated node names',
        config: { whitelists: ['node==node1|node3'] },
        nodes,
        pass: ['node1', 'node3'],
        reasons: { node2: 'whitelist node==node1|node3' },
        conditions: ['node==node1|node3 (soft=false)'],
      },
      { name: 'names are exact, not globs', config: { whitelists: ['node==node*'] }, nodes, pass: [] },
      { name: 'any key names nodes', config: { whitelists: ['hosts==node2'] }, nodes, pass: ['node2'] },
      { name: '!= excludes the listed nodes', config: { whitelists: ['node!=node1|node2'] }, nodes, pass: ['node3'] },
      {
        name: 'soft whitelist dropped on the second pass',
        config: { whitelists: ['node==~node9'] },
        soft: false,
        nodes,
        pass: ['node1', 'node2', 'node3'],
      },
      { name: 'no whitelist: nothing to check', config: {}, nodes, inactive: true },
      { name: 'invalid key', config: { whitelists: ['-x==node1'] }, nodes, throws: "Key '-x' is invalid" },
    ],
    { it },
  );
});
