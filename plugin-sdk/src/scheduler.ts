import type { Node } from './node.js';
import type { NodeTable } from './node-table.js';
import type { ContainerConfig } from './types/docker.js';

/**
 * What the scheduler is asked to place. Built once per decision by the host, so filters can
 * precompute in `prepare` and stay cheap per node.
 */
export interface PlacementRequest {
  /** The create config with swarm's env entries (constraint:, affinity:, ...) already moved to labels. */
  readonly config: ContainerConfig;
  readonly name: string | undefined;
  /** CPUs asked for (Swarm classic reads CpuShares as a number of CPUs). */
  readonly cpus: number;
  /** Bytes asked for. */
  readonly memory: number;
  /** True on the first pass, when soft expressions (`==~`, `!=~`) still apply. */
  readonly soft: boolean;
}

export type FilterVerdict =
  | { readonly pass: true }
  | {
      readonly pass: false;
      /** Short reason shown per node, e.g. `port 80 (Bridge mode)` or `constraint storage==ssd`. */
      readonly reason: string;
      /** False when waiting or adding capacity cannot fix it (a bad expression, a missing dependency). */
      readonly resolvable?: boolean;
    };

export const PASS: FilterVerdict = Object.freeze({ pass: true });

export function fail(reason: string, resolvable = true): FilterVerdict {
  return { pass: false, reason, resolvable };
}

/** A filter prepared for one request. */
export interface FilterRun {
  /**
   * The conditions this filter enforces for this request, as Swarm classic prints them in
   * `Unable to find a node that satisfies the following conditions` (one `[...]` line each).
   */
  readonly conditions: readonly string[];
  /** Whether any soft expression took part (then a failed pass is retried without them). */
  readonly usesSoft?: boolean;
  /**
   * When this filter is the one that leaves no node, the error text to answer instead of the
   * conditions list (Swarm classic's health filter: `No healthy node available in the cluster`).
   */
  readonly refusalMessage?: string;
  /**
   * The rows `check` has to see, when the filter can tell them faster than checking every node
   * (a scan of one column: the unhealthy rows, the rows with some label); the host may leave the
   * other rows out, and they pass. A hint only: `check` must still answer for any row. At thousands of nodes this spares a call per node on
   * every decision.
   */
  readonly rowsToCheck?: ArrayLike<number>;
  /**
   * The verdict for one node. `row` is the node's row in the NodeTable given to `prepare`:
   * read per-node facts there (`table.healthy[row]`) rather than from `node`, which is much
   * slower at thousands of nodes.
   */
  check(node: Node, row: number): FilterVerdict;
}

export interface Filter {
  readonly name: string;
  /**
   * Parse what the request asks of this filter. Return `undefined` when the filter has nothing to
   * check for it (every node passes). Throw a SwarmError for invalid input (bad expressions).
   * `table` holds the facts of the nodes this run will check.
   */
  prepare(request: PlacementRequest, table: NodeTable): FilterRun | undefined;
}

export interface RankedNode {
  readonly node: Node;
  /** Lower is better for no strategy in particular: strategies report their own score scale. */
  readonly score: number;
}

export interface Strategy {
  readonly name: string;
  /**
   * Order the feasible nodes, best first. Nodes that cannot hold the request may be left out.
   * Throw a SwarmError (`no resources available to schedule container`) when none can.
   * `limit`, when given, is how many of the best nodes the caller needs: a strategy may stop
   * ranking there (the host passes it for real placements; explanations rank every node).
   * `table`, row `i` describing `nodes[i]`, holds their facts (the host always passes it; a
   * caller of its own builds one with `NodeColumns.of(nodes)` from `@swarm/plugin-sdk/helpers`).
   */
  rank(request: PlacementRequest, nodes: readonly Node[], limit: number | undefined, table: NodeTable): RankedNode[];
}

/** Options given to a strategy (from `--strategy-opt` or the config file). */
export type StrategyOptions = Readonly<Record<string, string | number | boolean>>;

export interface FilterVerdictRecord {
  readonly filter: string;
  readonly pass: boolean;
  readonly reason?: string;
  readonly resolvable?: boolean;
}

export interface NodeExplanation {
  readonly id: string;
  readonly name: string;
  /** Verdicts of the filters that ran on this node, in order; stops at the first failure. */
  readonly verdicts: readonly FilterVerdictRecord[];
  readonly feasible: boolean;
  /** Place in the strategy's ranking (1 = chosen), when it was ranked. */
  readonly rank?: number;
  readonly score?: number;
}

export interface PlacementExplanation {
  readonly strategy: string;
  readonly filters: readonly string[];
  /** Whether soft expressions were dropped to find a node. */
  readonly softDropped: boolean;
  readonly nodes: readonly NodeExplanation[];
  /** The chosen node's name, when one was found. */
  readonly chosen?: string;
  /** Kubernetes-style summary: `0/5 nodes are available: 2 port 80 (Bridge mode), 3 ...`. */
  readonly summary: string;
  /** The error text a client would see, when placement fails. */
  readonly error?: string;
  /**
   * Set when explain's dry run of the whole pipeline (plugin API 2.2) stopped before scheduling, as
   * `kubectl --dry-run=server` does: the stage that refused the request as a create, with the code
   * and HTTP status `docker run` would get; `error` is its text and `nodes` is empty.
   */
  readonly refused?: {
    /** `authorization`: an authorizer, or a container, network, image or volume the caller may not name. */
    readonly stage: 'authentication' | 'authorization' | 'admission';
    /** The create's error code (`SWARM_ERR_PERMISSION_DENIED`). */
    readonly code: string;
    /** The create's HTTP status (403). */
    readonly status: number;
  };
}

/** The result of a successful placement. */
export interface Placement {
  /** Candidates best first; drivers try the next one when creating on the first fails. */
  readonly ranked: readonly RankedNode[];
  readonly explanation: PlacementExplanation;
}

/**
 * The scheduler pipeline (filters, then the strategy) provided by the host in every deployment
 * container. Drivers inject it under `Tokens.Scheduler`.
 */
export interface Scheduler {
  readonly strategyName: string;
  readonly filterNames: readonly string[];
  /** Build the request for a config (moves env expressions to labels, reads cpus/memory). */
  request(config: ContainerConfig, name?: string): PlacementRequest;
  /** Place or throw a SwarmError whose message is Swarm classic's text plus the per-node summary. */
  select(request: PlacementRequest, nodes: readonly Node[]): Placement;
  /** Dry run: never throws for an unplaceable request, reports why instead. */
  explain(request: PlacementRequest, nodes: readonly Node[]): PlacementExplanation;
}
