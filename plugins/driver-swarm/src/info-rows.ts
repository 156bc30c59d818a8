import { type Scheduler } from '@swarm/plugin-sdk';
import { bytesSize } from '@swarm/plugin-sdk/helpers';
import type { EngineNode } from './engine-node.js';

const STATUS_TEXT = { pending: 'Pending', healthy: 'Healthy', unhealthy: 'Unhealthy', disconnected: 'Disconnected' } as const;

/** RFC 3339 in UTC without fractions, as Go's time.RFC3339 prints it. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

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
  const counts = node.counts();
  const labels = Object.entries(node.labels())
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return [
    [` ${node.name || '(unknown)'}`, node.addr],
    ['  └ ID', node.engineId],
    ['  └ Status', STATUS_TEXT[node.status()]],
    ['  └ Containers', `${counts.total} (${counts.running} Running, ${counts.paused} Paused, ${counts.stopped} Stopped)`],
    ['  └ Reserved CPUs', `${node.usedCpus()} / ${node.totalCpus()}`],
    ['  └ Reserved Memory', `${bytesSize(node.usedMemory())} / ${bytesSize(node.totalMemory())}`],
    ['  └ Labels', labels.join(', ')],
    ['  └ Error', node.lastError() || '(none)'],
    ['  └ UpdatedAt', rfc3339(node.updatedAt)],
    ['  └ ServerVersion', node.version],
  ];
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
