import type { EngineMonitor } from './engine-monitor.js';
import type { EngineNode } from './engine-node.js';

/** `node/name` split when the prefix names a node (by name or engine ID). */
export function splitNodePrefix(nodes: readonly EngineNode[], reference: string): { node?: EngineNode; name: string } {
  const slash = reference.indexOf('/');
  if (slash <= 0) return { name: reference };
  const prefix = reference.slice(0, slash);
  const node = nodes.find((candidate) => candidate.name === prefix || candidate.engineId === prefix || candidate.id === prefix);
  return node ? { node, name: reference.slice(slash + 1) } : { name: reference };
}

/** The engines a reference acts on, and the name each of them knows the object by. */
export interface NodeCopies {
  readonly holders: EngineMonitor[];
  readonly name: string;
}

/**
 * Swarm classic's rule for objects every engine has its own copy of (volumes, images): a name
 * acts on every engine holding it; when none does and the name is `node/name`, on that node's
 * copy only. `holds(node, name)` tells whether an engine holds `name`. No holder: empty list.
 */
export function copiesOf(
  monitors: readonly EngineMonitor[],
  reference: string,
  holds: (node: EngineNode, name: string) => boolean,
): NodeCopies {
  const everywhere = monitors.filter((monitor) => holds(monitor.node, reference));
  if (everywhere.length > 0) return { holders: everywhere, name: reference };
  const { node, name } = splitNodePrefix(
    monitors.map((monitor) => monitor.node),
    reference,
  );
  const holders = node ? monitors.filter((monitor) => monitor.node === node && holds(node, name)) : [];
  return { holders, name };
}
