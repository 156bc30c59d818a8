import { ANONYMOUS_USER, OWNER_LABEL, TEAM_LABEL, type AccessObject, type Caller } from '@swarm/plugin-sdk/access';
import type { Binding } from './binding.js';
import type { ActionNeed } from './roles.js';
import { teamsOf } from './scope.js';

/*
 * Refusals are read by the person refused and by whoever administers the rules, so each says who
 * (the user and groups the rules saw), what (the action and object), what they have (each binding
 * by its place in the options) and how to fix it (the role or scope to bind).
 */

const SHOWN_BINDINGS = 3;

function who(caller: Caller): string {
  const groups = caller.groups.length > 0 ? `groups ${caller.groups.join(', ')}` : 'no groups';
  return `user ${caller.user} (${groups})`;
}

function reach(binding: Binding, caller: Caller): string {
  if (binding.scope === 'all') return 'everything';
  if (binding.scope === 'own') return 'objects they own';
  if (binding.group !== undefined) return `team ${binding.group}`;
  const teams = teamsOf(caller);
  return teams.length > 0 ? `their teams (${teams.join(', ')})` : 'their teams (none)';
}

/** `role view on team team-b (bindings[1])`. */
export function describeBinding(binding: Binding, caller: Caller): string {
  return `role ${binding.role} on ${reach(binding, caller)} (${binding.name})`;
}

function have(bindings: readonly Binding[], caller: Caller): string {
  const shown = bindings.slice(0, SHOWN_BINDINGS).map((binding) => describeBinding(binding, caller));
  const more = bindings.length > SHOWN_BINDINGS ? ` and ${bindings.length - SHOWN_BINDINGS} more` : '';
  return `they have ${shown.join(', ')}${more}`;
}

function target(object: AccessObject | undefined): string {
  const name = object?.name ?? object?.id;
  return object && name !== undefined ? ` ${object.kind} ${name}` : '';
}

function ownership(object: AccessObject): string {
  const owner = object.labels[OWNER_LABEL];
  const team = object.labels[TEAM_LABEL];
  if (owner === undefined && team === undefined) return 'no owner labels: made before access control was on';
  return [owner === undefined ? undefined : `owner ${owner}`, team === undefined ? undefined : `team ${team}`].filter(Boolean).join(', ');
}

function headline(caller: Caller, action: string, object: AccessObject | undefined): string {
  return `${who(caller)} may not ${action}${target(object)}`;
}

export const Reasons = {
  noBinding(caller: Caller, action: string, object: AccessObject | undefined): string {
    const fix =
      caller.user === ANONYMOUS_USER
        ? "the anonymous caller may do nothing here; authenticate, or set the rules option anonymous: 'view'"
        : `no binding names them; add one for user ${caller.user}${teamsOf(caller).length > 0 ? ' or one of their groups' : ''} to the rules bindings`;
    return `${headline(caller, action, object)}: ${fix}`;
  },
  roleTooLow(
    caller: Caller,
    action: string,
    object: AccessObject | undefined,
    need: ActionNeed,
    bindings: readonly Binding[],
    known: boolean,
  ): string {
    const why = known ? have(bindings, caller) : `only the admin role may do an action the rules do not list; ${have(bindings, caller)}`;
    return `${headline(caller, action, object)}: ${why}; bind role ${need.role}${need.reach === 'all' && need.role !== 'admin' ? ' with scope all' : ''}`;
  },
  needsScopeAll(caller: Caller, action: string, object: AccessObject | undefined, need: ActionNeed, bindings: readonly Binding[]): string {
    return `${headline(caller, action, object)}: ${action} reaches the objects of every owner, so it needs role ${need.role} with scope all; ${have(bindings, caller)}; bind role ${need.role} with scope all`;
  },
  outOfScope(caller: Caller, action: string, object: AccessObject, need: ActionNeed, bindings: readonly Binding[]): string {
    return `${headline(caller, action, object)} (${ownership(object)}): ${have(bindings, caller)}, which do not reach it; bind role ${need.role} on a scope that covers it`;
  },
  createOutOfScope(caller: Caller, action: string, created: AccessObject, need: ActionNeed, bindings: readonly Binding[]): string {
    const team = created.labels[TEAM_LABEL];
    const belongs =
      team === undefined
        ? 'would belong to no team (they have no group that is not system:*)'
        : `would belong to team ${team} (their first group that is not system:*)`;
    return `${headline(caller, action, undefined)}: the new ${created.kind} ${belongs}, and ${have(bindings, caller)}, which do not reach it; bind role ${need.role} for that team or on their own objects`;
  },
  labelsSet(caller: Caller, action: string, labels: readonly string[]): string {
    return `${headline(caller, action, undefined)}: ${labels.length > 1 ? 'labels' : 'label'} ${labels.join(' and ')} ${labels.length > 1 ? 'are' : 'is'} written by the manager, and only the admin role may set ${labels.length > 1 ? 'them' : 'it'}; remove ${labels.length > 1 ? 'them' : 'it'} from the request`;
  },
} as const;
