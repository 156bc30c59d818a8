import type { FilterVerdictRecord, NodeExplanation, PlacementExplanation, RankedNode } from '@swarm/plugin-sdk';
import { failuresByNode, type NodeFailures } from './filter-pass.js';
import type { FilterPass } from './pass-record.js';
import { INSUFFICIENT_RESOURCES } from './refusal-text.js';

export interface Outcome {
  readonly pass: FilterPass;
  readonly strategy: string;
  readonly softDropped: boolean;
  /** Empty when placement failed. */
  readonly ranked: readonly RankedNode[];
  readonly summary: string;
  readonly error?: string;
}

function verdictsOf(outcome: Outcome, failures: NodeFailures, index: number, ranked: boolean): FilterVerdictRecord[] {
  const { pass } = outcome;
  const failedAt = failures.failedAt[index]!;
  const records: FilterVerdictRecord[] = [];
  const last = failedAt < 0 ? pass.filters.length - 1 : failedAt;
  for (let f = 0; f <= last; f++) {
    const filter = pass.filters[f]!;
    if (!filter.run) continue;
    const verdict = f === failedAt ? failures.verdicts[index] : undefined;
    records.push(
      verdict && !verdict.pass
        ? { filter: filter.name, pass: false, reason: verdict.reason, resolvable: verdict.resolvable ?? true }
        : { filter: filter.name, pass: true },
    );
  }
  if (failedAt < 0 && !ranked && outcome.ranked.length > 0) {
    records.push({ filter: outcome.strategy, pass: false, reason: INSUFFICIENT_RESOURCES, resolvable: true });
  }
  return records;
}

/** The full per-node explanation, built only when asked for (it is the one per-node allocation). */
export function buildExplanation(outcome: Outcome): PlacementExplanation {
  const ranks = new Map(outcome.ranked.map((entry, index) => [entry.node, { rank: index + 1, score: entry.score }]));
  const failures = failuresByNode(outcome.pass);
  const nodes: NodeExplanation[] = outcome.pass.nodes.map((node, index) => {
    const ranking = ranks.get(node);
    return {
      id: node.id,
      name: node.name,
      verdicts: verdictsOf(outcome, failures, index, ranking !== undefined),
      feasible: failures.failedAt[index] === -1,
      ...(ranking ?? {}),
    };
  });
  return {
    strategy: outcome.strategy,
    filters: outcome.pass.filters.map((filter) => filter.name),
    softDropped: outcome.softDropped,
    nodes,
    ...(outcome.ranked[0] ? { chosen: outcome.ranked[0].node.name } : {}),
    summary: outcome.summary,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
  };
}
