import { type Scheduler } from '@swarm/plugin-sdk';
import { nodeInfoRows } from '@swarm/plugin-sdk/helpers';
import type { EngineNode, EngineSnapshot } from './engine-node.js';

type Row = [string, string];

/** The cluster-wide sums `docker info` shows above the rows. */
export interface InfoTotals {
  ncpu: number;
  memTotal: number;
  containers: number;
  running: number;
  paused: number;
  stopped: number;
}

/** Swarm classic's SystemStatus rows and the totals, as of one call. */
export interface InfoAnswer {
  readonly rows: Row[];
  readonly totals: InfoTotals;
}

/** What `docker info` shows of one node, as of one of its snapshots. */
interface NodeEntry {
  readonly snapshot: EngineSnapshot;
  readonly rows: readonly Row[];
}

/** The last answer, patched in place for the nodes that changed since. */
interface Answer {
  readonly sorted: readonly EngineNode[];
  readonly header: readonly Row[];
  readonly entries: NodeEntry[];
  /** Where each node's rows start in `rows`. */
  readonly starts: number[];
  readonly rows: Row[];
  readonly totals: InfoTotals;
}

function entryOf(snapshot: EngineSnapshot): NodeEntry {
  const { engineId, counts, updatedAt, serverVersion } = snapshot;
  return { snapshot, rows: nodeInfoRows(snapshot, { id: engineId, containers: counts, updatedAt, serverVersion }) };
}

function addTo(totals: InfoTotals, { snapshot }: NodeEntry, sign: 1 | -1): void {
  totals.ncpu += sign * snapshot.cpus;
  totals.memTotal += sign * snapshot.memory;
  totals.containers += sign * snapshot.counts.total;
  totals.running += sign * snapshot.counts.running;
  totals.paused += sign * snapshot.counts.paused;
  totals.stopped += sign * snapshot.counts.stopped;
}

const byName = (a: EngineNode, b: EngineNode): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Swarm classic's `docker info` SystemStatus rows and totals, for one cluster, made from the nodes'
 * snapshots. Each call costs a snapshot check per node plus the work for the nodes with a new one
 * since the last call: their rows are rebuilt and patched into the last answer, and the totals
 * adjusted by their difference.
 * Unchanged nodes hand back the same row objects (the API front keeps each row's encoding by its
 * identity and position); the nodes are sorted again only when the list or a name changed.
 */
export class InfoRows {
  private order: { nodes: readonly EngineNode[]; names: string[]; sorted: EngineNode[] } | undefined;
  private header: Row[] = [];
  private last: Answer | undefined;

  answer(nodes: readonly EngineNode[], scheduler: Pick<Scheduler, 'strategyName' | 'filterNames'>): InfoAnswer {
    const sorted = this.sorted(nodes);
    const header = this.headerRows(scheduler, nodes.length);
    const last = this.last?.sorted === sorted && this.last.header === header ? this.patched(this.last) : undefined;
    const answer = last ?? this.rebuilt(sorted, header);
    this.last = answer;
    // the kept rows are patched by later calls: callers get their own array
    return { rows: answer.rows.slice(), totals: { ...answer.totals } };
  }

  /** The last answer with its changed nodes' rows and totals replaced, or undefined if a node's row count changed. */
  private patched(last: Answer): Answer | undefined {
    const { sorted, entries, starts, rows, totals } = last;
    for (let index = 0; index < sorted.length; index++) {
      const node = sorted[index]!;
      const before = entries[index]!;
      const snapshot = node.snapshot();
      if (snapshot === before.snapshot) continue;
      const after = entryOf(snapshot);
      if (after.rows.length !== before.rows.length) return undefined;
      for (let offset = 0; offset < after.rows.length; offset++) rows[starts[index]! + offset] = after.rows[offset]!;
      addTo(totals, before, -1);
      addTo(totals, after, 1);
      entries[index] = after;
    }
    return last;
  }

  private rebuilt(sorted: readonly EngineNode[], header: readonly Row[]): Answer {
    const kept = new Map<EngineNode, NodeEntry>();
    if (this.last) this.last.sorted.forEach((node, index) => kept.set(node, this.last!.entries[index]!));
    const totals: InfoTotals = { ncpu: 0, memTotal: 0, containers: 0, running: 0, paused: 0, stopped: 0 };
    const rows: Row[] = [...header];
    const entries: NodeEntry[] = [];
    const starts: number[] = [];
    for (const node of sorted) {
      const before = kept.get(node);
      const snapshot = node.snapshot();
      const entry = before?.snapshot === snapshot ? before : entryOf(snapshot);
      entries.push(entry);
      starts.push(rows.length);
      for (const row of entry.rows) rows.push(row);
      addTo(totals, entry, 1);
    }
    return { sorted, header, entries, starts, rows, totals };
  }

  /** The four rows above the nodes', the same objects while their texts stay. */
  private headerRows(scheduler: Pick<Scheduler, 'strategyName' | 'filterNames'>, count: number): Row[] {
    const texts = ['primary', scheduler.strategyName, scheduler.filterNames.join(', '), String(count)];
    if (this.header.length === texts.length && this.header.every((row, index) => row[1] === texts[index])) return this.header;
    const keys = ['Role', 'Strategy', 'Filters', 'Nodes'];
    this.header = keys.map((key, index): Row => [key, texts[index]!]);
    return this.header;
  }

  private sorted(nodes: readonly EngineNode[]): EngineNode[] {
    const order = this.order;
    if (order?.nodes === nodes && nodes.every((node, index) => node.name === order.names[index])) return order.sorted;
    const sorted = [...nodes].sort(byName);
    this.order = { nodes, names: nodes.map((node) => node.name), sorted };
    return sorted;
  }
}
