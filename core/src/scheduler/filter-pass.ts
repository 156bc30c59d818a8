import {
  ErrorCodes,
  isSwarmError,
  type SwarmError,
  type Filter,
  type FilterRun,
  type FilterVerdict,
  type Node,
  type NodeTable,
  type PlacementRequest,
} from '@swarm/plugin-sdk';
import type { PluginGuard } from '../plugins/plugin-guard.js';
import { CALL_SLOT } from '../plugins/watchdog/call-marks.js';
import type { FilterPass, PreparedFilter } from './pass-record.js';
import { requestRefused } from './refusal-text.js';

/**
 * Scratch space for one pass, reused by the next (a pass over 10,000 nodes would otherwise
 * allocate and grow its lists for every decision, which the young generation then pays for).
 * A pass started from inside another (a filter that schedules) gets its own.
 */
export class PassScratch {
  failedAt = new Int32Array(0);
  verdicts: Array<FilterVerdict | undefined> = [];
  /** For each run that names its rows (`rowsToCheck`), by its place among the active runs: 1 per named row. */
  private named: Uint8Array[] = [];
  /** 1 per row that any run of this pass named so far (what to visit when every run names its rows). */
  private anyNamed = new Uint8Array(0);
  busy = false;

  take(size: number): this {
    if (this.failedAt.length < size) {
      this.failedAt = new Int32Array(size + (size >> 2));
      this.verdicts = new Array<FilterVerdict | undefined>(this.failedAt.length).fill(undefined);
      this.named = [];
      this.anyNamed = new Uint8Array(this.failedAt.length);
    }
    this.anyNamed.fill(0, 0, size);
    this.busy = true;
    return this;
  }

  /** Run `k`'s named rows as marks over the first `size` rows (rows out of range are ignored). */
  markNamed(k: number, rows: ArrayLike<number>, size: number): Uint8Array {
    let marks = this.named[k];
    if (marks === undefined) {
      marks = new Uint8Array(this.failedAt.length);
      this.named[k] = marks;
    } else marks.fill(0, 0, size);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (row >= 0 && row < size) {
        marks[row] = 1;
        this.anyNamed[row] = 1;
      }
    }
    return marks;
  }

  /** The rows any run of this pass named (see `markNamed`). */
  namedByAny(): Uint8Array {
    return this.anyNamed;
  }
}

/**
 * Prepare every filter for the request, then check each node, stopping at its first failing
 * filter. `table` holds the facts of `nodes` (row `i` for `nodes[i]`); `scratch` is the
 * scheduler's own, reused from pass to pass.
 */
export function runFilters(
  filters: readonly Filter[],
  request: PlacementRequest,
  table: NodeTable,
  guard: PluginGuard,
  reusable: PassScratch,
  sites: readonly FilterSites[],
): FilterPass {
  const nodes = table.nodes;
  const prepared = prepareFilters(filters, request, table, guard, sites);
  const activeIndexes: number[] = [];
  const activeRuns: FilterRun[] = [];
  const activeSites: number[] = [];
  prepared.forEach((filter, index) => {
    if (filter.run) {
      activeIndexes.push(index);
      activeRuns.push(filter.run);
      activeSites.push(sites[index]!.check);
    }
  });
  const usesSoft = activeRuns.some((run) => run.usesSoft === true);
  const scratch = (reusable.busy ? new PassScratch() : reusable).take(nodes.length);
  const marks = guard.marks;
  const outer = marks.enter(0);
  try {
    const refused = checkNodes(activeRuns, activeIndexes, activeSites, nodes, scratch, marks.slots, (index, error, node) => {
      const name = prepared[index]!.name;
      if (error instanceof ContractBroken) return guard.broke('filter', name, error.message);
      guard.observe('filter', name, 0, 'failed');
      return guard.failed('filter', name, error, { hook: 'check()', node: node.name });
    });
    return { request, filters: prepared, nodes, ...collect(table, scratch, refused), usesSoft };
  } finally {
    marks.exit(outer);
    scratch.busy = false;
  }
}

/** The watchdog's numbers for one filter's hooks (see CallMarks). */
export interface FilterSites {
  readonly prepare: number;
  readonly check: number;
}

/** A fault the host already named (an isolated hook that hung or threw): not the request's fault. */
export function isPluginFault(error: SwarmError): boolean {
  return error.code === ErrorCodes.PLUGIN_TIMEOUT || error.code === ErrorCodes.PLUGIN_FAILED;
}

/** A verdict or run that is not what the contract says; named by the host as the plugin's fault. */
class ContractBroken extends Error {}

function describeValue(value: unknown): string {
  if (
    value instanceof Promise ||
    (typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function')
  ) {
    return 'a Promise';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object without a check function' : `a ${typeof value}`;
}

/** Each filter's run for the request; a filter refusing the request (a malformed expression) fails it in Swarm classic's words. */
function prepareFilters(
  filters: readonly Filter[],
  request: PlacementRequest,
  table: NodeTable,
  guard: PluginGuard,
  sites: readonly FilterSites[],
): PreparedFilter[] {
  const prepared: PreparedFilter[] = [];
  const marks = guard.marks;
  for (let index = 0; index < filters.length; index++) {
    const filter = filters[index]!;
    const outer = marks.enter(sites[index]!.prepare);
    const started = performance.now();
    let run: FilterRun | undefined;
    try {
      run = filter.prepare(request, table);
    } catch (error) {
      if (isSwarmError(error) && !isPluginFault(error)) throw requestRefused(prepared, filter.name, error);
      if (isSwarmError(error)) throw error;
      guard.observe('filter', filter.name, (performance.now() - started) / 1000, 'failed');
      throw guard.failed('filter', filter.name, error, { hook: 'prepare()' });
    } finally {
      marks.exit(outer);
    }
    if (run !== undefined && typeof (run as Partial<FilterRun> | null)?.check !== 'function') {
      const returned = describeValue(run);
      throw guard.broke(
        'filter',
        filter.name,
        returned === 'a Promise'
          ? 'prepare() must return the check synchronously; it returned a Promise'
          : `prepare() must return undefined or { conditions, check(node, row) }; it returned ${returned}`,
      );
    }
    guard.observe('filter', filter.name, (performance.now() - started) / 1000, 'ok');
    prepared.push({ name: filter.name, run });
  }
  return prepared;
}

/**
 * Record each node's failing filter and verdict in the scratch; returns how many nodes were
 * refused. A run that names its rows (`rowsToCheck`) sees only those, the others pass it; when
 * every run names its rows, only the rows some run named are visited. A filter that throws is
 * blamed by its index in the pass.
 */
function checkNodes(
  runs: readonly FilterRun[],
  indexes: readonly number[],
  sites: readonly number[],
  nodes: readonly Node[],
  scratch: PassScratch,
  slots: Int32Array,
  blame: (filterIndex: number, error: unknown, node: Node) => Error,
): number {
  const { failedAt, verdicts } = scratch;
  const size = nodes.length;
  failedAt.fill(-1, 0, size);
  const named: Array<Uint8Array | undefined> = new Array(runs.length);
  let everyRunNamed = true;
  for (let f = 0; f < runs.length; f++) {
    const rows = runs[f]!.rowsToCheck;
    if (rows === undefined) everyRunNamed = false;
    else named[f] = scratch.markNamed(f, rows, size);
  }
  const visit = everyRunNamed ? scratch.namedByAny() : undefined;
  let refused = 0;
  let f = 0;
  let n = 0;
  try {
    for (n = 0; n < size; n++) {
      if (visit !== undefined && visit[n] === 0) continue;
      const node = nodes[n]!;
      for (f = 0; f < runs.length; f++) {
        const marks = named[f];
        if (marks !== undefined && marks[n] === 0) continue;
        slots[CALL_SLOT] = sites[f]!;
        const verdict = runs[f]!.check(node, n);
        if (verdict?.pass !== true) {
          if (verdict?.pass !== false) {
            throw new ContractBroken(
              `check() must return a verdict ({ pass: true } or fail(reason)) synchronously; it returned ${verdictOf(verdict)}`,
            );
          }
          failedAt[n] = indexes[f]!;
          verdicts[n] = verdict;
          refused++;
          break;
        }
      }
    }
  } catch (error) {
    throw blame(indexes[f]!, error, nodes[n]!);
  }
  return refused;
}

function verdictOf(value: unknown): string {
  const described = describeValue(value);
  return described === 'an object without a check function' ? 'an object without a boolean pass' : described;
}

type Collected = Pick<FilterPass, 'refusedNodes' | 'refusedBy' | 'refusals' | 'feasible' | 'feasibleTable'>;

/** Exactly sized lists from the scratch (the nodes and their table themselves when none was refused). */
function collect(table: NodeTable, scratch: PassScratch, refused: number): Collected {
  const nodes = table.nodes;
  if (refused === 0) return { refusedNodes: [], refusedBy: [], refusals: [], feasible: nodes, feasibleTable: table };
  const { failedAt, verdicts } = scratch;
  const feasibleRows = new Uint32Array(nodes.length - refused);
  const refusedNodes: number[] = new Array(refused);
  const refusedBy: number[] = new Array(refused);
  const refusals: FilterVerdict[] = new Array(refused);
  let kept = 0;
  let out = 0;
  for (let n = 0; n < nodes.length; n++) {
    const filter = failedAt[n]!;
    if (filter < 0) {
      feasibleRows[kept++] = n;
      continue;
    }
    refusedNodes[out] = n;
    refusedBy[out] = filter;
    refusals[out++] = verdicts[n]!;
    verdicts[n] = undefined;
  }
  const feasibleTable = table.select(feasibleRows);
  return { refusedNodes, refusedBy, refusals, feasible: feasibleTable.nodes, feasibleTable };
}

/** Per node (by index in `nodes`): what explanations need to list each node's verdicts. */
export interface NodeFailures {
  /** The index of the filter that failed the node, or -1. */
  readonly failedAt: Int32Array;
  /** The failing verdict, or undefined. */
  readonly verdicts: ReadonlyArray<FilterVerdict | undefined>;
}

export function failuresByNode(pass: FilterPass): NodeFailures {
  const failedAt = new Int32Array(pass.nodes.length).fill(-1);
  const verdicts: Array<FilterVerdict | undefined> = new Array(pass.nodes.length);
  pass.refusedNodes.forEach((node, k) => {
    failedAt[node] = pass.refusedBy[k]!;
    verdicts[node] = pass.refusals[k];
  });
  return { failedAt, verdicts };
}
