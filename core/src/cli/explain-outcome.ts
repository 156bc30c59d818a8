import type { PlacementExplanation } from '@swarm/plugin-sdk';

/** `swarm schedule --explain`'s exit codes, documented in the README and in `--help`. */
export const ExplainExit = { placed: 0, refused: 1, error: 2 } as const;

export const EXPLAIN_EXIT_HELP =
  'Exit status: 0 placed, 1 refused (by authentication, authorization, admission, or no node can take it), ' +
  '2 error (a plugin failed, a bad request, no manager).';

/**
 * How an explanation ended, read from its shape: a refusal before scheduling (authorization,
 * admission) says so in `refused`, as `docker run` would be refused: 1; a refusal carries the verdicts that refused (a
 * failing filter on a node, nodes that passed every filter when the strategy refused, or no node at
 * all); a plugin that threw or a request the scheduler could not read stops before any verdict, so
 * every node is listed without one.
 */
export function explainExitCode(explanation: PlacementExplanation): number {
  if (explanation.refused !== undefined) return ExplainExit.refused;
  if (explanation.error === undefined) return ExplainExit.placed;
  const { nodes } = explanation;
  const stoppedBeforeVerdicts = nodes.length > 0 && nodes.every((node) => node.verdicts.length === 0 && !node.feasible);
  return stoppedBeforeVerdicts ? ExplainExit.error : ExplainExit.refused;
}
