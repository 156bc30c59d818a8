import type { Node, NodeSnapshot } from '../node.js';
import type { NodeTable } from '../node-table.js';

/** At most this many label (and derived) columns are kept; asking for more starts the set over. */
const MAX_LABEL_COLUMNS = 32;
const MAX_DERIVED_COLUMNS = 64;

type LabelColumn = Array<string | undefined>;

/** Label values are shared through this many distinct strings at most (then the set starts over). */
const MAX_INTERNED = 65_536;

/** A derived value not worked out yet (or dropped because its node's snapshot changed). */
const UNSET = Symbol('unset');
type DerivedColumn = unknown[];

/**
 * A NodeTable that follows a changing node list, one row per node's snapshot: row `i` holds the
 * facts of `snapshots[i]`, and every label and derived value in the row was read or worked out
 * from that snapshot. `sync(nodes)` before each decision reads the snapshots of the nodes that may
 * have changed (every node when the list itself changed, else the rows whose node reported a
 * change through `watch`: at thousands of nodes, touching each node costs more than the decision),
 * and refills a row only when its node hands out a different snapshot.
 */
export class NodeColumns implements NodeTable {
  nodes: readonly Node[] = [];
  ids: string[] = [];
  names: string[] = [];
  healthy = new Uint8Array(0);
  healthIndicator = new Float64Array(0);
  totalCpus = new Float64Array(0);
  usedCpus = new Float64Array(0);
  totalMemory = new Float64Array(0);
  usedMemory = new Float64Array(0);
  containerCount = new Uint32Array(0);
  /** The snapshot each row was filled from. */
  private snapshots: Array<NodeSnapshot | undefined> = [];
  private labelColumns = new Map<string, LabelColumn>();
  private derivedColumns = new Map<string, DerivedColumn>();
  /**
   * One string per distinct label value: the nodes' own copies lie apart in the heap, while a
   * column of shared strings stays in the caches when filters compare them.
   */
  private interned = new Map<string, string>();
  private readonly watching: boolean;
  private unwatch: Array<() => void> = [];
  private dirty: number[] = [];
  private dirtyFlags = new Uint8Array(0);
  /** The caller's array the table was last built from or compared equal to, when it is frozen. */
  private frozenNodes: readonly Node[] | undefined;

  /** With `watch: false` (one-off tables) nodes are never subscribed to; sync re-reads every row. */
  constructor(options: { readonly watch?: boolean } = {}) {
    this.watching = options.watch ?? true;
  }

  /** A table of the nodes as they are now. */
  static of(nodes: readonly Node[]): NodeColumns {
    return new NodeColumns({ watch: false }).sync(nodes);
  }

  sync(nodes: readonly Node[]): this {
    if (!this.watching || !this.sameNodes(nodes)) return this.rebuild(nodes);
    const dirty = this.dirty;
    for (let k = 0; k < dirty.length; k++) {
      this.dirtyFlags[dirty[k]!] = 0;
      this.read(dirty[k]!);
    }
    dirty.length = 0;
    return this;
  }

  /** Stop watching the nodes (the table is then left as it was). */
  release(): void {
    for (const stop of this.unwatch) stop();
    this.unwatch = [];
  }

  label(key: string): ReadonlyArray<string | undefined> {
    let column = this.labelColumns.get(key);
    if (column === undefined) {
      if (this.labelColumns.size >= MAX_LABEL_COLUMNS) this.labelColumns = new Map();
      column = new Array<string | undefined>(this.nodes.length);
      for (let row = 0; row < this.nodes.length; row++) column[row] = this.intern(this.snapshots[row]!.labels[key]);
      this.labelColumns.set(key, column);
    }
    return column;
  }

  derived<V>(key: string, derive: (node: Node) => V): (row: number) => V {
    let column = this.derivedColumns.get(key);
    if (column === undefined) {
      if (this.derivedColumns.size >= MAX_DERIVED_COLUMNS) this.derivedColumns = new Map();
      column = new Array<unknown>(this.nodes.length).fill(UNSET);
      this.derivedColumns.set(key, column);
    }
    const values = column;
    const nodes = this.nodes;
    return (row) => {
      let value = values[row];
      if (value === UNSET) {
        value = derive(nodes[row]!);
        values[row] = value;
      }
      return value as V;
    };
  }

  select(rows: ArrayLike<number>): NodeTable {
    return new SelectedRows(this, rows);
  }

  /**
   * Compared one by one against a copy: the caller's array may have been edited in place. A frozen
   * array cannot be, so the one last compared equal is taken as it is (a driver that hands the same
   * frozen list to every placement spares a walk over all nodes per placement).
   */
  private sameNodes(nodes: readonly Node[]): boolean {
    if (nodes === this.frozenNodes) return true;
    const known = this.nodes;
    if (nodes.length !== known.length) return false;
    for (let row = 0; row < nodes.length; row++) if (nodes[row] !== known[row]) return false;
    this.frozenNodes = Object.isFrozen(nodes) ? nodes : undefined;
    return true;
  }

  private rebuild(nodes: readonly Node[]): this {
    this.release();
    const size = nodes.length;
    this.nodes = nodes.slice();
    this.frozenNodes = Object.isFrozen(nodes) ? nodes : undefined;
    this.ids = new Array<string>(size);
    this.names = new Array<string>(size);
    this.healthy = new Uint8Array(size);
    this.healthIndicator = new Float64Array(size);
    this.totalCpus = new Float64Array(size);
    this.usedCpus = new Float64Array(size);
    this.totalMemory = new Float64Array(size);
    this.usedMemory = new Float64Array(size);
    this.containerCount = new Uint32Array(size);
    this.snapshots = new Array<NodeSnapshot | undefined>(size);
    this.labelColumns = new Map();
    this.derivedColumns = new Map();
    this.dirty = [];
    this.dirtyFlags = new Uint8Array(size);
    for (let row = 0; row < size; row++) {
      this.read(row);
      if (this.watching) this.watchRow(row);
    }
    return this;
  }

  private watchRow(row: number): void {
    this.unwatch.push(
      this.nodes[row]!.watch(() => {
        if (this.dirtyFlags[row] === 1) return;
        this.dirtyFlags[row] = 1;
        this.dirty.push(row);
      }),
    );
  }

  private read(row: number): void {
    const snapshot = this.nodes[row]!.snapshot();
    if (snapshot === this.snapshots[row]) return;
    this.snapshots[row] = snapshot;
    this.ids[row] = snapshot.id;
    this.names[row] = snapshot.name;
    this.healthy[row] = snapshot.healthy ? 1 : 0;
    this.healthIndicator[row] = snapshot.healthIndicator;
    this.totalCpus[row] = snapshot.totalCpus;
    this.usedCpus[row] = snapshot.usedCpus;
    this.totalMemory[row] = snapshot.totalMemory;
    this.usedMemory[row] = snapshot.usedMemory;
    this.containerCount[row] = snapshot.containers.length;
    for (const column of this.derivedColumns.values()) column[row] = UNSET;
    if (this.labelColumns.size === 0) return;
    for (const [key, column] of this.labelColumns) column[row] = this.intern(snapshot.labels[key]);
  }

  private intern(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const shared = this.interned.get(value);
    if (shared !== undefined) return shared;
    if (this.interned.size >= MAX_INTERNED) this.interned = new Map();
    this.interned.set(value, value);
    return value;
  }
}

function gatherList<T>(column: readonly T[], rows: ArrayLike<number>): T[] {
  const out = new Array<T>(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = column[rows[k]!]!;
  return out;
}

/**
 * Some rows of a table: the numeric columns copied out at once (one pass), the string ones the
 * first time they are read.
 */
class SelectedRows implements NodeTable {
  readonly nodes: readonly Node[];
  readonly healthy: Uint8Array;
  readonly healthIndicator: Float64Array;
  readonly totalCpus: Float64Array;
  readonly usedCpus: Float64Array;
  readonly totalMemory: Float64Array;
  readonly usedMemory: Float64Array;
  readonly containerCount: Uint32Array;
  private readonly lists = new Map<string, ReadonlyArray<string | undefined>>();

  constructor(
    private readonly source: NodeTable,
    private readonly rows: ArrayLike<number>,
  ) {
    const size = rows.length;
    this.nodes = gatherList(source.nodes, rows);
    this.healthy = new Uint8Array(size);
    this.healthIndicator = new Float64Array(size);
    this.totalCpus = new Float64Array(size);
    this.usedCpus = new Float64Array(size);
    this.totalMemory = new Float64Array(size);
    this.usedMemory = new Float64Array(size);
    this.containerCount = new Uint32Array(size);
    for (let k = 0; k < size; k++) {
      const row = rows[k]!;
      this.healthy[k] = source.healthy[row]!;
      this.healthIndicator[k] = source.healthIndicator[row]!;
      this.totalCpus[k] = source.totalCpus[row]!;
      this.usedCpus[k] = source.usedCpus[row]!;
      this.totalMemory[k] = source.totalMemory[row]!;
      this.usedMemory[k] = source.usedMemory[row]!;
      this.containerCount[k] = source.containerCount[row]!;
    }
  }

  get ids(): readonly string[] {
    return this.list('ids', () => this.source.ids) as readonly string[];
  }

  get names(): readonly string[] {
    return this.list('names', () => this.source.names) as readonly string[];
  }

  label(key: string): ReadonlyArray<string | undefined> {
    return this.list(`label:${key}`, () => this.source.label(key));
  }

  derived<V>(key: string, derive: (node: Node) => V): (row: number) => V {
    const source = this.source.derived(key, derive);
    const rows = this.rows;
    return (row) => source(rows[row]!);
  }

  select(rows: ArrayLike<number>): NodeTable {
    return new SelectedRows(this, rows);
  }

  private list(name: string, column: () => ReadonlyArray<string | undefined>): ReadonlyArray<string | undefined> {
    let copy = this.lists.get(name);
    if (copy === undefined) {
      copy = gatherList(column(), this.rows);
      this.lists.set(name, copy);
    }
    return copy;
  }
}
