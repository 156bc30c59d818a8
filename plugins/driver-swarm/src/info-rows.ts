import { type Scheduler } from '@swarm/plugin-sdk';
import { nodeInfoRows } from '@swarm/plugin-sdk/helpers';
import type { EngineNode } from './engine-node.js';

type Row = [string, string];

function buildNodeRows(node: EngineNode): Row[] {
  return nodeInfoRows(node, { id: node.engineId, containers: node.counts(), updatedAt: node.updatedAt, serverVersion: node.version });
}

const byName = (a: EngineNode, b: EngineNode): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Swarm classic's `docker info` SystemStatus rows, for one cluster. A node's rows are rebuilt only
 * when the node changed, and the same row objects come back otherwise (the API front keeps each
 * row's encoding by its identity); the nodes are sorted again only when the list or a name changed.
 */
export class InfoRows {
  private readonly perNode = new WeakMap<EngineNode, { version: number; rows: Row[] }>();
  private order: { nodes: readonly EngineNode[]; names: string[]; sorted: EngineNode[] } | undefined;

  rows(nodes: readonly EngineNode[], scheduler: Scheduler): Row[] {
    const rows: Row[] = [
      ['Role', 'primary'],
      ['Strategy', scheduler.strategyName],
      ['Filters', scheduler.filterNames.join(', ')],
      ['Nodes', String(nodes.length)],
    ];
    for (const node of this.sorted(nodes)) for (const row of this.nodeRows(node)) rows.push(row);
    return rows;
  }

  private nodeRows(node: EngineNode): Row[] {
    const cached = this.perNode.get(node);
    if (cached?.version === node.infoVersion()) return cached.rows;
    const rows = buildNodeRows(node);
    this.perNode.set(node, { version: node.infoVersion(), rows });
    return rows;
  }

  private sorted(nodes: readonly EngineNode[]): EngineNode[] {
    const order = this.order;
    if (order?.nodes === nodes && nodes.every((node, index) => node.name === order.names[index])) return order.sorted;
    const sorted = [...nodes].sort(byName);
    this.order = { nodes, names: nodes.map((node) => node.name), sorted };
    return sorted;
  }
}
