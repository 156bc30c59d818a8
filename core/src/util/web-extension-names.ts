/*
 * Where web extensions are served, and which names they may take. Only the host mounts them, so
 * these live in core, not in the plugin contract.
 */

/** Where a web extension named `name` is served: `/swarm/<name>` (answered by every manager, replicas included). */
export function webPrefix(name: string): string {
  return `/swarm/${name}`;
}

/** Docker's swarm-mode operations live under `/swarm/` too: no web extension may take their names. */
const DOCKER_SWARM_OPERATIONS: ReadonlySet<string> = new Set(['init', 'join', 'leave', 'update', 'unlock', 'unlockkey']);

/** Whether `name` can name a web extension: lower-case letters, digits and dashes, and none of Docker's `/swarm/<operation>`s. */
export function isWebExtensionName(name: string): boolean {
  return /^[a-z][a-z0-9-]{0,62}$/.test(name) && !DOCKER_SWARM_OPERATIONS.has(name);
}
