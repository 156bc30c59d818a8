import type { Node } from './node.js';

/**
 * What filters and strategies read from every node on every decision, one column per fact,
 * row `i` describing `nodes[i]`. At thousands of nodes, calling each node's methods reaches
 * objects spread over hundreds of MB of heap, which costs more than the decision itself; these
 * columns are a few bytes per node and stay in the CPU caches. The host fills each row from its
 * node's snapshot (`Node.snapshot`) and keeps it current: a node is read again only after it
 * reports a change (`Node.watch`), and its row is refilled only when it hands out a new snapshot.
 */
export interface NodeTable {
  readonly nodes: readonly Node[];
  readonly ids: readonly string[];
  readonly names: readonly string[];
  /** 1 where `isHealthy()`. */
  readonly healthy: Uint8Array;
  readonly healthIndicator: Float64Array;
  readonly totalCpus: Float64Array;
  readonly usedCpus: Float64Array;
  readonly totalMemory: Float64Array;
  readonly usedMemory: Float64Array;
  /** `containers().length`: stopped and pending containers included. */
  readonly containerCount: Uint32Array;
  /** Each node's value of one label (`labels()[key]`), undefined where it has none. */
  label(key: string): ReadonlyArray<string | undefined>;
  /**
   * A value worked out from a node (which containers publish port 80, whether an expression
   * matches), computed the first time a row asks and kept while the node hands out the same
   * snapshot (see `Node.snapshot`): a filter
   * that asks the same question decision after decision reads a column instead of the nodes.
   * `key` must name exactly what `derive` computes (prefix it with the filter's name); the
   * value may depend only on the node.
   */
  derived<V>(key: string, derive: (node: Node) => V): (row: number) => V;
  /** The same facts for some of the rows, in the order given (`nodes` becomes those nodes). */
  select(rows: ArrayLike<number>): NodeTable;
}
