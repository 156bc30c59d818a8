import { describe, it } from 'vitest';
import { fakeNode, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/filter-constraint';

const constraint = pluginProviders(plugin).filter('constraint');
const nodes = [
  fakeNode({ name: 'node1', id: 'AAAA:1111', labels: { storage: 'ssd', region: 'eu-west', storagedriver: 'vfs' } }),
  fakeNode({ name: 'node2', labels: { storage: 'disk', region: 'us-east', storagedriver: 'vfs' } }),
  fakeNode({ name: 'node10', labels: { region: 'eu-north', storagedriver: 'overlay2' } }),
];

describe('constraint filter', () => {
  filterConformance(constraint, { it });

  runFilterCases(
    constraint,
    [
      {
        name: 'node name',
        config: { constraints: ['node==node1'] },
        nodes,
        pass: ['node1'],
        reasons: { node2: 'constraint node==node1' },
        conditions: ['node==node1'],
      },
      { name: 'node ID', config: { constraints: ['node==AAAA:1111'] }, nodes, pass: ['node1'] },
      { name: 'negated node', config: { constraints: ['node!=node1'] }, nodes, pass: ['node2', 'node10'] },
      { name: 'glob is anchored', config: { constraints: ['node==node1*'] }, nodes, pass: ['node1', 'node10'] },
      { name: 'regex is not anchored', config: { constraints: ['node==/node1/'] }, nodes, pass: ['node1', 'node10'] },
      { name: 'regex with (?i)', config: { constraints: ['node==/(?i)^NODE[12]$/'] }, nodes, pass: ['node1', 'node2'] },
      {
        name: 'engine label',
        config: { constraints: ['storage==ssd'] },
        nodes,
        pass: ['node1'],
        reasons: { node2: 'constraint storage==ssd', node10: 'constraint storage==ssd' },
      },
      {
        name: 'negated label holds where the label is missing',
        config: { constraints: ['storage!=ssd'] },
        nodes,
        pass: ['node2', 'node10'],
      },
      { name: 'label glob', config: { constraints: ['region==eu-*'] }, nodes, pass: ['node1', 'node10'] },
      { name: 'standard label', config: { constraints: ['storagedriver==overlay2'] }, nodes, pass: ['node10'] },
      {
        name: 'several constraints: the first unsatisfied one is the reason',
        config: { constraints: ['region==eu-*', 'storage==ssd'] },
        nodes,
        pass: ['node1'],
        reasons: { node2: 'constraint region==eu-*', node10: 'constraint storage==ssd' },
        conditions: ['region==eu-*', 'storage==ssd'],
      },
      {
        name: 'soft constraint applies on the first pass',
        config: { constraints: ['storage==~nvme'] },
        nodes,
        pass: [],
        reasons: { node1: 'constraint storage==~nvme' },
        conditions: ['storage==nvme'],
        usesSoft: true,
      },
      {
        name: 'soft constraint is dropped on the second pass',
        config: { constraints: ['storage==~nvme', 'region==us-*'] },
        soft: false,
        nodes,
        pass: ['node2'],
        usesSoft: false,
      },
      {
        name: 'constraints given as the swarm label',
        config: { labels: { 'com.docker.swarm.constraints': '["node==node2"]' } },
        nodes,
        pass: ['node2'],
      },
      { name: 'no constraint: nothing to check', config: {}, nodes, inactive: true },
      { name: 'missing operator', config: { constraints: ['storage=ssd'] }, nodes, throws: 'One of operator ==, != is expected' },
      { name: 'invalid key', config: { constraints: ['s==ssd'] }, nodes, throws: "Key 's' is invalid" },
      { name: 'invalid value', config: { constraints: ['storage==ss;d'] }, nodes, throws: "Value 'ss;d' is invalid" },
    ],
    { it },
  );
});
