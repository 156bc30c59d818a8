import type { Filter, FilterRun, FilterVerdict, Node, PlacementRequest } from '@swarm/plugin-sdk';

export interface PreparedFilter {
  readonly name: string;
  /** Undefined when the filter has nothing to check for this request. */
  readonly run: FilterRun | undefined;
}

/** One run of the filters over the nodes, kept compact: no per-node objects for nodes that pass. */
export interface FilterPass {
  readonly request: PlacementRequest;
  readonly filters: readonly PreparedFilter[];
  readonly nodes: readonly Node[];
  /** Per node: the index (in `filters`) of the filter that failed it, or -1. */
  readonly failedAt: Int32Array;
  /** Per node: the failing verdict, or undefined. */
  readonly failures: ReadonlyArray<FilterVerdict | undefined>;
  readonly feasible: readonly Node[];
  /** Whether a soft expression took part (a failed pass is then retried without them). */
  readonly usesSoft: boolean;
}

/** Prepare every filter for the request, then check each node, stopping at its first failing filter. */
export function runFilters(filters: readonly Filter[], request: PlacementRequest, nodes: readonly Node[]): FilterPass {
  const prepared = filters.map((filter) => ({ name: filter.name, run: filter.prepare(request) }));
  const activeIndexes: number[] = [];
  const activeRuns: FilterRun[] = [];
  prepared.forEach((filter, index) => {
    if (filter.run) {
      activeIndexes.push(index);
      activeRuns.push(filter.run);
    }
  });
  const failedAt = new Int32Array(nodes.length).fill(-1);
  const failures: Array<FilterVerdict | undefined> = new Array(nodes.length);
  const feasible: Node[] = [];
  for (let n = 0; n < nodes.length; n++) {
    const node = nodes[n]!;
    let passed = true;
    for (let f = 0; f < activeRuns.length; f++) {
      const verdict = activeRuns[f]!.check(node);
      if (!verdict.pass) {
        failedAt[n] = activeIndexes[f]!;
        failures[n] = verdict;
        passed = false;
        break;
      }
    }
    if (passed) feasible.push(node);
  }
  return { request, filters: prepared, nodes, failedAt, failures, feasible, usesSoft: activeRuns.some((run) => run.usesSoft === true) };
}
