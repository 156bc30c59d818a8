import type { PlacementConstraint } from '@swarm/plugin-sdk/access';
import type { Binding } from './binding.js';

/**
 * The node limits a create must meet, from the bindings that allowed it (those that reach the
 * new container: its team's, or the caller's own). A binding without a limit lets the caller
 * place anywhere, so it wins. Otherwise the first granting binding's limit applies: constraints
 * only add up, so two bindings' limits are never joined into one that no node meets.
 */
export function placementFor(granting: readonly Binding[]): PlacementConstraint[] {
  const chosen = granting[0];
  if (chosen === undefined || granting.some((binding) => binding.nodes.length === 0)) return [];
  const subject = chosen.group !== undefined ? `group ${chosen.group}` : `user ${chosen.user}`;
  return chosen.nodes.map((expression) => ({ expression, rule: `${chosen.name} (${subject}): nodes ${expression}` }));
}
