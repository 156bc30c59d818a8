import { describe, expect, it } from 'vitest';
import { type Node } from '@swarm/plugin-sdk';
import { NodeColumns, readSnapshot, SnapshotVersions } from '@swarm/plugin-sdk/helpers';
import { fakeNode, reportChange } from '@swarm/plugin-sdk/testing';

const GiB = 1024 ** 3;

/**
 * A node whose reservations and labels change (a new snapshot and a `watch` call each time),
 * counting how often the table reads it and asks for its snapshot.
 */
class ChangingNode {
  reads = 0;
  snapshotCalls = 0;
  used = 0;
  zone = 'a';
  private readonly base: Node;
  private readonly versions = new SnapshotVersions();

  constructor(name: string) {
    this.base = fakeNode({ name, memory: 8 * GiB });
  }

  change(used: number, zone = this.zone): void {
    this.used = used;
    this.zone = zone;
    this.versions.changed();
  }

  asNode(): Node {
    const node: Node = Object.create(this.base, {
      snapshot: {
        value: () => {
          this.snapshotCalls++;
          return this.versions.current((version) => readSnapshot(node, version));
        },
      },
      watch: { value: (listener: () => void) => this.versions.watch(listener) },
      usedMemory: { value: () => this.used },
      labels: { value: () => ({ zone: this.zone }) },
      isHealthy: {
        value: () => {
          this.reads++;
          return true;
        },
      },
    }) as Node;
    return node;
  }
}

describe('NodeColumns', () => {
  it('reads every node once, then only the nodes that hand out a new snapshot', () => {
    const changing = [new ChangingNode('a'), new ChangingNode('b'), new ChangingNode('c')];
    const nodes = changing.map((node) => node.asNode());
    const table = new NodeColumns();
    table.sync(nodes);
    expect(changing.map((node) => node.reads)).toEqual([1, 1, 1]);
    expect(table.label('zone')).toEqual(['a', 'a', 'a']);

    changing[1]!.change(GiB, 'b');
    table.sync([...nodes]);
    expect(changing.map((node) => node.reads)).toEqual([1, 2, 1]);
    expect([...table.usedMemory]).toEqual([0, GiB, 0]);
    expect(table.label('zone')).toEqual(['a', 'b', 'a']);

    table.sync(nodes);
    expect(changing.map((node) => node.reads)).toEqual([1, 2, 1]);
    // unchanged nodes are not even asked for their snapshot: a decision touches only what changed
    expect(changing.map((node) => node.snapshotCalls)).toEqual([1, 2, 1]);
  });

  it('does not see a change its node gave no new snapshot for', () => {
    const silent = new ChangingNode('quiet');
    const table = new NodeColumns().sync([silent.asNode()]);
    silent.used = 2 * GiB;
    table.sync(table.nodes);
    expect(table.usedMemory[0]).toBe(0);
    expect(silent.reads).toBe(1);
  });

  it('starts over when the node list changes, and stops watching nodes that left', () => {
    const [a, b] = [new ChangingNode('a'), new ChangingNode('b')];
    const nodeA = a.asNode();
    const nodeB = b.asNode();
    const table = new NodeColumns().sync([nodeA, nodeB]);
    table.sync([nodeB]);
    expect(table.names).toEqual(['b']);
    a.change(0, 'b');
    table.sync([nodeB]);
    expect(a.reads).toBe(1);
    // The same array edited in place is still seen as a new list.
    const list = [nodeB];
    table.sync(list);
    list[0] = nodeA;
    table.sync(list);
    expect(table.names).toEqual(['a']);
    // A frozen list handed again is the same list; another frozen one is compared as any other
    const frozen = Object.freeze([nodeA, nodeB]);
    table.sync(frozen);
    b.change(GiB);
    table.sync(frozen);
    expect([...table.usedMemory]).toEqual([0, GiB]);
    table.sync(Object.freeze([nodeB]));
    expect(table.names).toEqual(['b']);
    table.sync(frozen);
    expect(table.names).toEqual(['a', 'b']);
  });

  it('refills a row only when its node hands out a new snapshot, and keeps derived values with it', () => {
    const [a, b] = [new ChangingNode('a'), new ChangingNode('b')];
    const table = new NodeColumns().sync([a.asNode(), b.asNode()]);
    let derivations = 0;
    const zoneLength = () => table.derived('test:zone', (node) => (derivations++, node.labels()['zone']!.length));
    expect([zoneLength()(0), zoneLength()(1)]).toEqual([1, 1]);
    expect([a.reads, b.reads, derivations]).toEqual([1, 1, 2]);
    table.sync(table.nodes);
    expect([zoneLength()(0), zoneLength()(1)]).toEqual([1, 1]);
    expect([a.reads, b.reads, derivations]).toEqual([1, 1, 2]);
    b.change(GiB, 'east');
    table.sync(table.nodes);
    expect([zoneLength()(0), zoneLength()(1)]).toEqual([1, 4]);
    expect([...table.usedMemory]).toEqual([0, GiB]);
    expect(table.label('zone')).toEqual(['a', 'east']);
    expect([a.reads, b.reads, derivations]).toEqual([1, 2, 3]);
    expect(table.select([1]).derived('test:zone', () => -1)(0)).toBe(4);
  });

  it('hears fake nodes through reportChange, which gives them a new snapshot', () => {
    const node = fakeNode({ name: 'f' });
    let heard = 0;
    const stop = node.watch(() => heard++);
    const first = node.snapshot();
    expect(node.snapshot()).toBe(first);
    reportChange(node);
    stop();
    reportChange(node);
    expect(heard).toBe(1);
    expect(node.snapshot().version).toBe(first.version + 2);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('selects rows into a table of their own, labels included', () => {
    const nodes = ['x', 'y', 'z'].map((name, i) => fakeNode({ name, labels: { rack: `r${i}` }, memory: (i + 1) * GiB }));
    const selected = NodeColumns.of(nodes).select([2, 0]);
    expect(selected.nodes.map((node) => node.name)).toEqual(['z', 'x']);
    expect([...selected.totalMemory]).toEqual([3 * GiB, GiB]);
    expect(selected.label('rack')).toEqual(['r2', 'r0']);
    expect(selected.select([1]).names).toEqual(['x']);
  });
});
