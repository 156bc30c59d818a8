import { describe, it } from 'vitest';
import { fakeNode, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/filter-dependency';

const dependency = pluginProviders(plugin).filter('dependency');
const nodes = [
  fakeNode({ name: 'node1', containers: [{ name: 'db' }, { name: 'data', state: 'exited' }] }),
  fakeNode({ name: 'node2', containers: [{ name: 'db' }] }),
  fakeNode({ name: 'node3' }),
];

describe('dependency filter', () => {
  filterConformance(dependency, { it });

  runFilterCases(
    dependency,
    [
      {
        name: '--link',
        config: { links: ['db:database'] },
        nodes,
        pass: ['node1', 'node2'],
        reasons: { node3: 'dependency --link=db:database' },
      },
      {
        name: '--volumes-from with a mode',
        config: { volumesFrom: ['data:ro'] },
        nodes,
        pass: ['node1'],
        reasons: { node2: 'dependency --volumes-from=data:ro' },
      },
      {
        name: '--net=container:',
        config: { network: 'container:db' },
        nodes,
        pass: ['node1', 'node2'],
        reasons: { node3: 'dependency --net=container:db' },
      },
      {
        name: 'all at once, listed as Swarm classic lists them',
        config: { volumesFrom: ['data'], links: ['db:db'], network: 'container:db' },
        nodes,
        pass: ['node1'],
        reasons: { node2: 'dependency --volumes-from=data', node3: 'dependency --volumes-from=data' },
        conditions: ['--volumes-from=data', '--link=db:db', '--net=container:db'],
      },
      { name: 'a container ID works too', config: { links: [nodes[1]!.containers()[0]!.id] }, nodes, pass: ['node2'] },
      { name: 'the engine link format /db:/web/db', config: { links: ['/db:/web/db'] }, nodes, pass: ['node1', 'node2'] },
      { name: 'no dependency: nothing to check', config: { network: 'bridge' }, nodes, inactive: true },
    ],
    { it },
  );
});
