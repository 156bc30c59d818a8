import { type Scheduler } from '@swarm/plugin-sdk';
import { nodeInfoRows } from '@swarm/plugin-sdk/helpers';
import type { EngineNode } from './engine-node.js';

const cachedRows = new WeakMap<EngineNode, { version: number; rows: Array<[string, string]> }>();

/** A node's rows, rebuilt only when the node changed: `info` at 1,000 nodes reuses almost all. */
function nodeRows(node: EngineNode): Array<[string, string]> {
  const cached = cachedRows.get(node);
  if (cached?.version === node.infoVersion()) return cached.rows;
  const rows = buildNodeRows(node);
  cachedRows.set(node, { version: node.infoVersion(), rows });
  return rows;
}

function buildNodeRows(node: EngineNode): Array<[string, string]> {
  return nodeInfoRows(node, { id: node.engineId, containers: node.counts(), updatedAt: node.updatedAt, serverVersion: node.version });
}

/** Swarm classic's `docker info` SystemStatus rows: role, scheduler, then every node sorted by name. */
export function infoRows(nodes: readonly EngineNode[], scheduler: Scheduler): Array<[string, string]> {
  const sorted = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [
    ['Role', 'primary'],
    ['Strategy', scheduler.strategyName],
    ['Filters', scheduler.filterNames.join(', ')],
    ['Nodes', String(nodes.length)],
    ...sorted.flatMap(nodeRows),
  ];
}
