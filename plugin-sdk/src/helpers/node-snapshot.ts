import type { Node, NodeSnapshot } from '../node.js';

/**
 * `node`'s facts read now from its methods, as a snapshot with the given version: what a driver's
 * `snapshot()` builds (through `SnapshotVersions`) when its node has nothing cheaper to hand. The
 * lists and labels are copied and frozen, so the snapshot stays as it was when the node's own
 * lists change in place.
 */
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
    labels: Object.freeze({ ...node.labels() }),
    containers: Object.freeze([...node.containers()]),
    images: Object.freeze([...node.images()]),
    lastError: node.lastError(),
  };
}

/**
 * `derive` of a node's snapshot, kept with the snapshot: worked out again only once the node hands
 * out a new one. For what a filter reads from every node on every decision (the ports its
 * containers hold, their names); one per filter, so deployments share nothing.
 */
export function memoizeBySnapshot<V>(derive: (snapshot: NodeSnapshot) => V): (node: Node) => V {
  const kept = new WeakMap<NodeSnapshot, V>();
  return (node) => {
    const snapshot = node.snapshot();
    if (kept.has(snapshot)) return kept.get(snapshot)!;
    const value = derive(snapshot);
    kept.set(snapshot, value);
    return value;
  };
}

/**
 * A driver's snapshots of one node: call `changed()` after every change, and `current(build)`
 * answers `snapshot()`, building a new snapshot only on the first read after a change; `watch`
 * answers the node's `watch` (each `changed()` calls the listeners).
 */
export class SnapshotVersions<S extends NodeSnapshot = NodeSnapshot> {
  private version = 0;
  private built: S | undefined;
  private readonly listeners = new Set<() => void>();

  /** Something the node answers changed: the next read builds a new snapshot, and the watchers hear of it. */
  changed(): void {
    this.version++;
    this.built = undefined;
    for (const listener of this.listeners) listener();
  }

  current(build: (version: number) => S): S {
    this.built ??= Object.freeze(build(this.version));
    return this.built;
  }

  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
