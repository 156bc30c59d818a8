/*
 * The role → action table: the one place that says what each role may do. The README's matrix is
 * this table written out; change both together.
 */

/** The roles, weakest first: each one may do everything the ones before it may. */
export const ROLES = ['view', 'operate', 'edit', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** How strong a role is: a binding grants an action when its rank is at least the action's. */
export const ROLE_RANK: Readonly<Record<Role, number>> = { view: 0, operate: 1, edit: 2, admin: 3 };

/**
 * Which bindings of a strong enough role grant an action:
 * - `object`: a binding whose scope covers the object; any binding when the action names none
 *   (a list is then cut down by the caller's visibility, a create is labelled as theirs).
 * - `all`: only a binding with scope `all`, because the action touches objects of every owner at
 *   once (a prune) or shows the whole cluster (metrics).
 */
export type Reach = 'object' | 'all';

export interface ActionNeed {
  readonly role: Role;
  readonly reach: Reach;
}

/** Actions every caller may do, the anonymous one included: a liveness probe or the CLI's version negotiation says nothing about any object, and comes before a caller can show who they are. */
export const OPEN_ACTIONS: ReadonlySet<string> = new Set(['system.ping', 'swarm.health']);

const VIEW = [
  'container.list',
  'container.inspect',
  'container.stats',
  'container.top',
  'container.changes',
  'container.wait',
  'exec.inspect',
  'image.list',
  'image.inspect',
  'image.history',
  'image.search',
  'image.save',
  'network.list',
  'network.inspect',
  'volume.list',
  'volume.inspect',
  'node.list',
  'node.inspect',
  // Engine plugins are the cluster's, like nodes: reading them shows nobody's objects, and
  // `docker inspect NAME` asks for a plugin last, after a container, image, network and volume.
  'plugin.list',
  'plugin.inspect',
  'system.info',
  'system.version',
  'system.events',
  'system.df',
  'system.auth',
  'swarm.explain',
  'swarm.web',
  // A web extension's POST reads the manager through its read-only view (the web view's explain).
  'swarm.web.action',
] as const;

const VIEW_ALL = ['swarm.metrics'] as const;

// The "operate": start, stop, restart, kill, logs, exec, attach; and what is like them
// (reading a container's files is as much as exec'ing `cat` in it).
const OPERATE = [
  'container.start',
  'container.stop',
  'container.restart',
  'container.kill',
  'container.pause',
  'container.unpause',
  'container.logs',
  'container.attach',
  'container.exec',
  'container.resize',
  'container.export',
  'container.archive',
  'exec.start',
  'exec.resize',
] as const;

// The "edit": create, remove, rename, update, networks and volumes; and image writes that add.
const EDIT = [
  'container.create',
  'container.remove',
  'container.rename',
  'container.update',
  'container.commit',
  'container.archive.write',
  'image.pull',
  'image.build',
  'image.import',
  'image.load',
  'image.tag',
  'image.push',
  'network.create',
  'network.remove',
  'network.connect',
  'network.disconnect',
  'volume.create',
  'volume.remove',
  // On an image of the caller's scope or a shared (pulled) one; the host refuses to remove a shared
  // image another team's containers use.
  'image.remove',
] as const;

// Prunes remove objects of every owner.
const EDIT_ALL = ['container.prune', 'image.prune', 'network.prune', 'volume.prune'] as const;

function rows(role: Role, reach: Reach, actions: readonly string[]): [string, ActionNeed][] {
  return actions.map((action) => [action, { role, reach }]);
}

/** Every action a role below admin may do. Anything else (installing or changing `plugin.*`, `unknown`, a new kind) is admin only: fail closed. */
export const ACTION_TABLE: ReadonlyMap<string, ActionNeed> = new Map([
  ...rows('view', 'object', VIEW),
  ...rows('view', 'all', VIEW_ALL),
  ...rows('operate', 'object', OPERATE),
  ...rows('edit', 'object', EDIT),
  ...rows('edit', 'all', EDIT_ALL),
]);

const ADMIN_ONLY: ActionNeed = { role: 'admin', reach: 'all' };

/** What an action needs; an action the table does not list needs the admin role. */
export function actionNeed(action: string): ActionNeed {
  return ACTION_TABLE.get(action) ?? ADMIN_ONLY;
}

/** Actions whose body may carry labels the manager writes (`Labels` of the create or update). */
export const LABELLED_ACTIONS: ReadonlySet<string> = new Set(['container.create', 'network.create', 'volume.create', 'container.update']);
