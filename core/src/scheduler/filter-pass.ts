import type { Filter, FilterRun, FilterVerdict, Node, PlacementRequest } from '@swarm/plugin-sdk';

export interface PreparedFilter {
  readonly name: string;
  /** Undefined when the filter has nothing to check for this request. */
  readonly run: FilterRun | undefined;
}

/**
 * One run of the filters over the nodes, kept compact: nothing per node for nodes that pass,
 * and three parallel lists (in node order) for the nodes that a filter refused.
 */
export interface FilterPass {
  readonly request: PlacementRequest;
  readonly filters: readonly PreparedFilter[];
  readonly nodes: readonly Node[];
  /** Index (in `nodes`) of each refused node. */
  readonly refusedNodes: readonly number[];
  /** For each refused node, the index (in `filters`) of the filter that failed it. */
  readonly refusedBy: readonly number[];
  /** For each refused node, the failing verdict. */
  readonly refusals: readonly FilterVerdict[];
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
  const refusedNodes: number[] = [];
  const refusedBy: number[] = [];
  const refusals: FilterVerdict[] = [];
  const feasible: Node[] = [];
  for (let n = 0; n < nodes.length; n++) {
    const node = nodes[n]!;
    let passed = true;
    for (let f = 0; f < activeRuns.length; f++) {
      const verdict = activeRuns[f]!.check(node);
      if (!verdict.pass) {
        refusedNodes.push(n);
        refusedBy.push(activeIndexes[f]!);
        refusals.push(verdict);
        passed = false;
        break;
      }
    }
    if (passed) feasible.push(node);
  }
  const usesSoft = activeRuns.some((run) => run.usesSoft === true);
  return { request, filters: prepared, nodes, refusedNodes, refusedBy, refusals, feasible, usesSoft };
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
