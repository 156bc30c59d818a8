import { describe, expect, it } from 'vitest';
import { type Container, type Node } from '@swarm/plugin-sdk';
import { NodeColumns, readSnapshot, SnapshotVersions } from '@swarm/plugin-sdk/helpers';
import { fakeNode, placementRequest, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/filter-affinity';

const affinity = pluginProviders(plugin).filter('affinity');
const nodes = [
  fakeNode({
    name: 'node1',
    containers: [{ name: 'web', labels: { 'com.example.tier': 'front' } }],
    images: [{ id: 'sha256:1111aaaa', repoTags: ['127.0.0.1:5000/busybox:1', 'redis:7'] }],
  }),
  fakeNode({ name: 'node2', containers: [{ name: 'db', state: 'exited', labels: { 'com.example.tier': 'back' } }] }),
  fakeNode({ name: 'node3' }),
];
const webId = nodes[0]!.containers()[0]!.id;

describe('affinity filter', () => {
  filterConformance(affinity, { it });

  runFilterCases(
    affinity,
    [
      {
        name: 'container by name',
        config: { affinities: ['container==web'] },
        nodes,
        pass: ['node1'],
        reasons: { node2: 'affinity container==web' },
        conditions: ['container==web (soft=false)'],
      },
      { name: 'container by ID', config: { affinities: [`container==${webId}`] }, nodes, pass: ['node1'] },
      { name: 'container glob', config: { affinities: ['container==d*'] }, nodes, pass: ['node2'] },
      { name: 'container regex', config: { affinities: ['container==/^(web|db)$/'] }, nodes, pass: ['node1', 'node2'] },
      { name: 'anti-affinity', config: { affinities: ['container!=web'] }, nodes, pass: ['node2', 'node3'] },
      { name: 'image by repository', config: { affinities: ['image==redis'] }, nodes, pass: ['node1'] },
      {
        name: 'image by repo:tag with a registry port',
        config: { affinities: ['image==127.0.0.1:5000/busybox:1'] },
        nodes,
        pass: ['node1'],
      },
      { name: 'image repository with a registry port', config: { affinities: ['image==127.0.0.1:5000/busybox'] }, nodes, pass: ['node1'] },
      { name: 'image by ID', config: { affinities: ['image==sha256:1111aaaa'] }, nodes, pass: ['node1'] },
      { name: 'no such image', config: { affinities: ['image!=redis'] }, nodes, pass: ['node2', 'node3'] },
      { name: 'container label', config: { affinities: ['com.example.tier==front'] }, nodes, pass: ['node1'] },
      { name: 'container label, negated', config: { affinities: ['com.example.tier!=front'] }, nodes, pass: ['node2', 'node3'] },
      {
        name: 'soft affinity applies on the first pass',
        config: { affinities: ['container==~cache'] },
        nodes,
        pass: [],
        reasons: { node1: 'affinity container==~cache' },
        conditions: ['container==cache (soft=true)'],
        usesSoft: true,
      },
      {
        name: 'soft affinity is dropped on the second pass',
        config: { affinities: ['container==~cache'] },
        soft: false,
        nodes,
        pass: ['node1', 'node2', 'node3'],
      },
      {
        name: 'affinities given as the swarm label',
        config: { labels: { 'com.docker.swarm.affinities': '["container==db"]' } },
        nodes,
        pass: ['node2'],
      },
      { name: 'no affinity: nothing to check', config: {}, nodes, inactive: true },
      { name: 'invalid expression', config: { affinities: ['container~web'] }, nodes, throws: 'One of operator ==, != is expected' },
    ],
    { it },
  );

  it("follows a node's containers as they change: from its next snapshot", () => {
    const base = fakeNode({ name: 'node4' });
    const later = fakeNode({ name: 'node4', containers: [{ name: 'cache', labels: { 'com.example.tier': 'front' } }] });
    let current: readonly Container[] = base.containers();
    const versions = new SnapshotVersions();
    const node: Node = Object.create(base, {
      containers: { value: () => current },
      snapshot: { value: () => versions.current((version) => readSnapshot(node, version)) },
    }) as Node;
    const passes = (expression: string) =>
      affinity.prepare(placementRequest({ affinities: [expression] }), NodeColumns.of([node]))!.check(node, 0).pass;
    const before = [false, false, true];
    const after = [true, true, false];
    const answers = () => [passes('container==cache'), passes('com.example.tier==front'), passes('com.example.tier!=front')];
    expect(answers()).toEqual(before);
    current = later.containers();
    // what was worked out from a snapshot stands while the node hands out that snapshot
    expect(answers()).toEqual(before);
    versions.changed();
    expect(answers()).toEqual(after);
  });
});
