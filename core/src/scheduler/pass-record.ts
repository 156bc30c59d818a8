import type { FilterVerdict, FilterRun, Node, NodeTable, PlacementRequest } from '@swarm/plugin-sdk';

// The record of one pass lives apart from the code that runs it (filter-pass.ts) and the code
// that words its refusals (refusal-text.ts), so neither of the two imports the other's module.

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
  /** The facts of the feasible nodes (row `i` for `feasible[i]`), for the strategy. */
  readonly feasibleTable: NodeTable;
  /** Whether a soft expression took part (a failed pass is then retried without them). */
  readonly usesSoft: boolean;
}
