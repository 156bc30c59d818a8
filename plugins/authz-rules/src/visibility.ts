import { OWNER_LABEL, TEAM_LABEL, type AccessObject, type Caller, type Visibility } from '@swarm/plugin-sdk/access';
import type { Binding, ImageAccess } from './binding.js';
import { isShared, teamsOf } from './scope.js';

const NOTHING: Visibility = { sees: () => false };
const EVERYTHING: Visibility = { sees: () => true, everything: true };

/**
 * The caller's view, worked out once per request: `sees` runs per container of a `docker ps`,
 * so it only looks up two labels in what was precomputed here. It answers as `inScope` does
 * for the caller's bindings (every role may view), so what `sees` hides, inspect refuses.
 */
export function visibilityFor(bindings: readonly Binding[], caller: Caller, images: ImageAccess): Visibility {
  if (bindings.length === 0) return NOTHING;
  if (bindings.some((binding) => binding.scope === 'all')) return EVERYTHING;
  const owner = bindings.some((binding) => binding.scope === 'own') ? caller.user : undefined;
  const teams = new Set<string>();
  for (const binding of bindings) {
    if (binding.scope !== 'team') continue;
    if (binding.group !== undefined) teams.add(binding.group);
    else for (const team of teamsOf(caller)) teams.add(team);
  }
  return {
    sees(object: AccessObject): boolean {
      const labels = object.labels;
      if (owner !== undefined && labels[OWNER_LABEL] === owner) return true;
      const team = labels[TEAM_LABEL];
      return (team !== undefined && teams.has(team)) || isShared(object, images);
    },
  };
}
