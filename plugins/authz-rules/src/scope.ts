import { OWNER_LABEL, TEAM_LABEL, type AccessObject, type AccessObjectKind, type Caller } from '@swarm/plugin-sdk/access';
import type { Binding, ImageAccess } from './binding.js';

// The networks every engine has; they carry no owner labels and everyone's containers use them.
const PREDEFINED_NETWORKS: ReadonlySet<string> = new Set(['bridge', 'host', 'none']);

/** The caller's groups that may be a team (the manager never labels with a `system:*` group). */
export function teamsOf(caller: Caller): string[] {
  return caller.groups.filter((group) => !group.startsWith('system:'));
}

/** The team the manager labels the caller's new objects with: their first group that is not `system:*`. */
export function teamOf(caller: Caller): string | undefined {
  return caller.groups.find((group) => !group.startsWith('system:'));
}

/**
 * Objects that are in every binding's scope, because nobody owns them: nodes, the engines' plugins and the system, the
 * predefined networks (`bridge`, or `node1/bridge` as swarm names them), and images: all of them with
 * `images: 'everyone'`, those without the manager's owner labels (pulled ones) with `images: 'owned'`.
 */
export function isShared(object: AccessObject, images: ImageAccess): boolean {
  switch (object.kind) {
    case 'node':
    case 'plugin':
    case 'system':
      return true;
    case 'image':
      return (
        images === 'everyone' || (images === 'owned' && object.labels[OWNER_LABEL] === undefined && object.labels[TEAM_LABEL] === undefined)
      );
    case 'network': {
      const name = object.name ?? '';
      return PREDEFINED_NETWORKS.has(name.slice(name.lastIndexOf('/') + 1));
    }
    default:
      return false;
  }
}

/**
 * Whether a binding's scope covers an object. Objects without owner labels (made before access
 * control was on) are covered by scope `all` alone.
 */
export function inScope(binding: Binding, caller: Caller, object: AccessObject, images: ImageAccess): boolean {
  if (binding.scope === 'all' || isShared(object, images)) return true;
  if (binding.scope === 'own') return object.labels[OWNER_LABEL] === caller.user;
  const team = object.labels[TEAM_LABEL];
  if (team === undefined) return false;
  // A group's binding reaches that group's team; a user's, every team the user is in.
  return binding.group !== undefined ? team === binding.group : teamsOf(caller).includes(team);
}

const CREATES: Readonly<Record<string, AccessObjectKind>> = {
  'container.create': 'container',
  'network.create': 'network',
  'volume.create': 'volume',
};

/**
 * What a create will make, labelled as the manager will label it (owner the caller, team their
 * first non-system group), when the host gave no object: a binding that does not reach it would
 * let the caller make what they could then neither see nor remove.
 */
export function createdObject(action: string, caller: Caller): AccessObject | undefined {
  const kind = CREATES[action];
  if (kind === undefined) return undefined;
  const team = teamOf(caller);
  return { kind, labels: team === undefined ? { [OWNER_LABEL]: caller.user } : { [OWNER_LABEL]: caller.user, [TEAM_LABEL]: team } };
}
