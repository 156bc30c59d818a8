import type { PlacementExplanation } from '@swarm/plugin-sdk';
import { formatTable } from '../util/format-table.js';

/** A placement explanation as a table of nodes plus the summary lines. */
export function formatExplanation(explanation: PlacementExplanation): string {
  const { refused } = explanation;
  if (refused !== undefined) {
    // no node was asked: the stage's refusal, in the words docker run would get
    return `${[
      `Strategy: ${explanation.strategy}`,
      `Filters: ${explanation.filters.join(', ')}`,
      '',
      `Refused by ${refused.stage}, before scheduling (docker run gets ${refused.status} ${refused.code}):`,
      `Error: ${explanation.error ?? ''}`,
    ].join('\n')}\n`;
  }
  const rows = explanation.nodes.map((node) => {
    const failed = node.verdicts.find((verdict) => !verdict.pass);
    return [
      node.name,
      node.feasible ? 'yes' : 'no',
      node.rank === undefined ? '-' : String(node.rank),
      node.score === undefined ? '-' : String(Math.round(node.score * 1000) / 1000),
      failed ? `${failed.filter}: ${failed.reason ?? 'failed'}` : '-',
    ];
  });
  const lines = [
    `Strategy: ${explanation.strategy}`,
    `Filters: ${explanation.filters.join(', ')}`,
    ...(explanation.softDropped ? ['Soft expressions were dropped to find a node'] : []),
    '',
    formatTable(['NODE', 'FEASIBLE', 'RANK', 'SCORE', 'REASON'], rows).trimEnd(),
    '',
    explanation.summary,
    explanation.chosen ? `Chosen: ${explanation.chosen}` : `Error: ${explanation.error ?? 'no node chosen'}`,
  ];
  return `${lines.join('\n')}\n`;
}
