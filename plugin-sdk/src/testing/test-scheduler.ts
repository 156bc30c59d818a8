import { NodeColumns } from '../helpers/node-columns.js';
import type { Node } from '../node.js';
import { SdkErrors } from '../errors.js';
import type {
  Filter,
  FilterVerdictRecord,
  NodeExplanation,
  Placement,
  PlacementExplanation,
  PlacementRequest,
  RankedNode,
  Scheduler,
  Strategy,
} from '../scheduler.js';
import type { ContainerConfig } from '../types/docker.js';
import { evaluateFilter, placementRequest, type FilterOutcome } from './evaluate.js';

/**
 * The strategy when a test gives none: the nodes with room for the request's CPUs and memory, by
 * name; none has room: Swarm classic's "no resources available to schedule container".
 */
const byName: Strategy = {
  name: 'by-name',
  rank: (request, nodes) => {
    const fitting = nodes.filter(
      (node) => node.usedCpus() + request.cpus <= node.totalCpus() && node.usedMemory() + request.memory <= node.totalMemory(),
    );
    if (fitting.length === 0) throw SdkErrors.noResources();
    return fitting.sort((a, b) => a.name.localeCompare(b.name)).map((node, index): RankedNode => ({ node, score: index }));
  },
};

/** A node's verdicts as the host records them: the filters in order, up to the first that refuses it. */
function verdictsOf(node: Node, outcomes: ReadonlyArray<{ filter: string; outcome: FilterOutcome }>): FilterVerdictRecord[] {
  if (!node.isHealthy()) return [{ filter: 'health', pass: false, reason: 'node is unhealthy' }];
  const verdicts: FilterVerdictRecord[] = [];
  for (const { filter, outcome } of outcomes) {
    const verdict = outcome.verdicts.get(node.name) ?? { pass: true };
    if (verdict.pass) verdicts.push({ filter, pass: true });
    else {
      verdicts.push({ filter, pass: false, reason: verdict.reason });
      break;
    }
  }
  return verdicts;
}

export interface TestSchedulerOptions {
  readonly filters?: readonly Filter[];
  readonly strategy?: Strategy;
}

/**
 * A scheduler for driver tests, given to the driver under `Tokens.Scheduler`: unhealthy nodes
 * out, the filters in order, then the strategy (by default, the nodes with room, by name). The host's
 * pipeline does the same plus caching, soft-expression retries and metrics, so a driver that
 * places through `select` here places through the host's too.
 */
export function testScheduler(options: TestSchedulerOptions = {}): Scheduler {
  const filters = options.filters ?? [];
  const strategy = options.strategy ?? byName;

  function decide(
    request: PlacementRequest,
    nodes: readonly Node[],
  ): { explanation: PlacementExplanation; ranked: RankedNode[]; refusal?: Error } {
    const healthy = nodes.filter((node) => node.isHealthy());
    const outcomes = filters.map((filter) => ({ filter: filter.name, outcome: evaluateFilter(filter, request, healthy) }));
    const feasible = healthy.filter((node) => outcomes.every(({ outcome }) => outcome.verdicts.get(node.name)?.pass !== false));
    let ranked: RankedNode[] = [];
    let refusal: Error | undefined;
    try {
      ranked = feasible.length > 0 ? strategy.rank(request, feasible, undefined, NodeColumns.of(feasible)) : [];
    } catch (caught) {
      refusal = caught as Error;
    }
    const rankOf = new Map(ranked.map((entry, index) => [entry.node.name, index + 1]));
    const passing = new Set(feasible);
    const explained = nodes.map((node): NodeExplanation => {
      const rank = rankOf.get(node.name);
      return {
        id: node.id,
        name: node.name,
        verdicts: verdictsOf(node, outcomes),
        feasible: passing.has(node),
        ...(rank !== undefined ? { rank } : {}),
      };
    });
    const summary = `${ranked.length}/${nodes.length} nodes are available`;
    const chosen = ranked[0]?.node.name;
    if (chosen === undefined) refusal ??= SdkErrors.testSchedulerNoNode({ summary });
    const explanation: PlacementExplanation = {
      strategy: strategy.name,
      filters: filters.map((filter) => filter.name),
      softDropped: false,
      nodes: explained,
      summary,
      ...(chosen !== undefined ? { chosen } : { error: refusal!.message }),
    };
    return { explanation, ranked, ...(chosen === undefined ? { refusal } : {}) };
  }

  return {
    strategyName: strategy.name,
    filterNames: filters.map((filter) => filter.name),
    request: (config: ContainerConfig, name?: string) => placementRequest(config, { name }),
    explain: (request: PlacementRequest, nodes: readonly Node[]) => decide(request, nodes).explanation,
    select(request: PlacementRequest, nodes: readonly Node[]): Placement {
      const { explanation, ranked, refusal } = decide(request, nodes);
      if (refusal) throw refusal;
      return { ranked, explanation };
    },
  };
}
