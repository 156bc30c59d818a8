import { describe, expect, it } from 'vitest';
import { type Node } from '@swarm/plugin-sdk';
import { NodeColumns, readSnapshot, SnapshotVersions } from '@swarm/plugin-sdk/helpers';
import { fakeNode, reportChange } from '@swarm/plugin-sdk/testing';

const GiB = 1024 ** 3;

/**
 * A node whose reservations and labels change, counting how often the table reads it. With
 * `reports` it offers `watch`, with `snapshots` also `snapshot()` (a new one after each change).
 */
class ChangingNode {
  reads = 0;
  used = 0;
  zone = 'a';
  private readonly listeners = new Set<() => void>();
  private readonly base: Node;
  private readonly versions = new SnapshotVersions();

  private readonly reports: boolean;
  private readonly snapshots: boolean;

  constructor(name: string, offers: { readonly reports: boolean; readonly snapshots?: boolean }) {
    this.base = fakeNode({ name, memory: 8 * GiB });
    this.reports = offers.reports;
    this.snapshots = offers.snapshots ?? false;
  }

  change(used: number, zone = this.zone): void {
    this.used = used;
    this.zone = zone;
    this.versions.changed();
    this.notify();
  }

  /** Call the listeners without a change (a driver may report more often than it changes). */
  notify(): void {
    for (const listener of this.listeners) listener();
  }

  asNode(): Node {
    const node: Node = Object.create(this.base, {
      snapshot: { value: this.snapshots ? () => this.versions.current((version) => readSnapshot(node, version)) : undefined },
      usedMemory: { value: () => this.used },
      labels: { value: () => ({ zone: this.zone }) },
      isHealthy: {
        value: () => {
          this.reads++;
          return true;
        },
      },
      watch: {
        value: this.reports
          ? (listener: () => void) => {
              this.listeners.add(listener);
              return () => this.listeners.delete(listener);
            }
          : undefined,
      },
    }) as Node;
    return node;
  }

  get watchers(): number {
    return this.listeners.size;
  }
}

describe('NodeColumns', () => {
  it('reads every node once, then only the nodes that reported a change', () => {
    const changing = [
      new ChangingNode('a', { reports: true }),
      new ChangingNode('b', { reports: true }),
      new ChangingNode('c', { reports: true }),
    ];
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
  });

  it('re-reads nodes without watch on every sync', () => {
    const silent = new ChangingNode('quiet', { reports: false });
    const table = new NodeColumns().sync([silent.asNode()]);
    silent.used = 2 * GiB;
    table.sync(table.nodes);
    expect(table.usedMemory[0]).toBe(2 * GiB);
    expect(silent.reads).toBe(2);
  });

  it('starts over when the node list changes, and stops watching nodes that left', () => {
    const [a, b] = [new ChangingNode('a', { reports: true }), new ChangingNode('b', { reports: true })];
    const nodeA = a.asNode();
    const nodeB = b.asNode();
    const table = new NodeColumns().sync([nodeA, nodeB]);
    expect([a.watchers, b.watchers]).toEqual([1, 1]);
    table.sync([nodeB]);
    expect([a.watchers, b.watchers]).toEqual([0, 1]);
    expect(table.names).toEqual(['b']);
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

  it('keeps derived values until their node reports a change', () => {
    const [a, b] = [new ChangingNode('a', { reports: true }), new ChangingNode('b', { reports: true })];
    const table = new NodeColumns().sync([a.asNode(), b.asNode()]);
    let derivations = 0;
    const usedGiB = () => table.derived('test:used', (node) => (derivations++, node.usedMemory() / GiB));
    expect([usedGiB()(0), usedGiB()(1)]).toEqual([0, 0]);
    expect([usedGiB()(0), usedGiB()(1)]).toEqual([0, 0]);
    expect(derivations).toBe(2);
    b.change(3 * GiB);
    table.sync(table.nodes);
    expect([usedGiB()(0), usedGiB()(1)]).toEqual([0, 3]);
    expect(derivations).toBe(3);
    expect(table.select([1]).derived('test:used', () => -1)(0)).toBe(3);
  });

  it('refills a row only when its node hands out a new snapshot, and keeps derived values with it', () => {
    const [a, b] = [new ChangingNode('a', { reports: true, snapshots: true }), new ChangingNode('b', { reports: true, snapshots: true })];
    const table = new NodeColumns().sync([a.asNode(), b.asNode()]);
    let derivations = 0;
    const zoneLength = () => table.derived('test:zone', (node) => (derivations++, node.labels()['zone']!.length));
    expect([zoneLength()(0), zoneLength()(1)]).toEqual([1, 1]);
    expect([a.reads, b.reads, derivations]).toEqual([1, 1, 2]);
    b.notify();
    table.sync(table.nodes);
    expect([zoneLength()(0), zoneLength()(1)]).toEqual([1, 1]);
    expect([a.reads, b.reads, derivations]).toEqual([1, 1, 2]);
    b.change(GiB, 'east');
    table.sync(table.nodes);
    expect([zoneLength()(0), zoneLength()(1)]).toEqual([1, 4]);
    expect([...table.usedMemory]).toEqual([0, GiB]);
    expect(table.label('zone')).toEqual(['a', 'east']);
    expect([a.reads, b.reads, derivations]).toEqual([1, 2, 3]);
  });

  it('hears fake nodes through reportChange, which gives them a new snapshot', () => {
    const node = fakeNode({ name: 'f' });
    let heard = 0;
    const stop = node.watch!(() => heard++);
    const first = node.snapshot!();
    expect(node.snapshot!()).toBe(first);
    reportChange(node);
    stop();
    reportChange(node);
    expect(heard).toBe(1);
    expect(node.snapshot!().version).toBe(first.version + 2);
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
