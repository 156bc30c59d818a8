import type { Node, NodeSnapshot } from '../node.js';

/** The version of a snapshot read from a node that has no `snapshot()`: nothing may be kept with it. */
export const UNVERSIONED = -1;

/** `node`'s facts read now from its methods, as a snapshot with the given version. */
export function readSnapshot(node: Node, version: number): NodeSnapshot {
  return {
    node,
    version,
    id: node.id,
    name: node.name,
    status: node.status(),
    healthy: node.isHealthy(),
    healthIndicator: node.healthIndicator(),
    totalCpus: node.totalCpus(),
    usedCpus: node.usedCpus(),
    totalMemory: node.totalMemory(),
    usedMemory: node.usedMemory(),
    labels: node.labels(),
    containers: node.containers(),
    images: node.images(),
    lastError: node.lastError(),
  };
}

/** The node's current snapshot; for a node without `snapshot()`, one read now (UNVERSIONED). */
export function snapshotOf(node: Node): NodeSnapshot {
  return node.snapshot?.() ?? readSnapshot(node, UNVERSIONED);
}

/**
 * `derive` of a node's snapshot, kept with the snapshot: worked out again only once the node hands
 * out a new one (for a node without `snapshot()`, on every call). For what a filter reads from
 * every node on every decision (the ports its containers hold, their names); one per filter, so
 * deployments share nothing.
 */
export function memoizeBySnapshot<V>(derive: (snapshot: NodeSnapshot) => V): (node: Node) => V {
  const kept = new WeakMap<NodeSnapshot, V>();
  return (node) => {
    const snapshot = snapshotOf(node);
    if (snapshot.version === UNVERSIONED) return derive(snapshot);
    if (kept.has(snapshot)) return kept.get(snapshot)!;
    const value = derive(snapshot);
    kept.set(snapshot, value);
    return value;
  };
}

/**
 * A driver's snapshots of one node: call `changed()` after every change, and `current(build)`
 * answers `snapshot()`, building a new snapshot only on the first read after a change.
 */
export class SnapshotVersions<S extends NodeSnapshot = NodeSnapshot> {
  private version = 0;
  private built: S | undefined;

  /** Something the node answers changed: the next read builds a new snapshot. */
  changed(): void {
    this.version++;
    this.built = undefined;
  }

  current(build: (version: number) => S): S {
    this.built ??= Object.freeze(build(this.version));
    return this.built;
  }
}
