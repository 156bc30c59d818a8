import { TEAM_LABEL, type AccessObject, type Caller, type PlacementConstraint } from '@swarm/plugin-sdk/access';
import type { Binding } from './binding.js';
import { teamOf } from './scope.js';

/**
 * The node limits a create must meet, from the bindings that allowed it. A binding without a
 * limit lets the caller place anywhere, so it wins. Otherwise the limit is that of the binding for
 * the team the new container will belong to (its team label, or the caller's first non-system
 * group), else the first granting binding's: constraints only add up, so two teams' limits are
 * never joined into one that no node meets.
 */
export function placementFor(granting: readonly Binding[], caller: Caller, object: AccessObject | undefined): PlacementConstraint[] {
  if (granting.length === 0 || granting.some((binding) => binding.nodes.length === 0)) return [];
  const team = object?.labels[TEAM_LABEL] ?? teamOf(caller);
  const chosen = granting.find((binding) => binding.group !== undefined && binding.group === team) ?? granting[0]!;
  const subject = chosen.group !== undefined ? `group ${chosen.group}` : `user ${chosen.user}`;
  return chosen.nodes.map((expression) => ({ expression, rule: `${chosen.name} (${subject}): nodes ${expression}` }));
}
