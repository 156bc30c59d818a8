import type { Node, NodeStatus } from '../node.js';
import { bytesSize } from './units.js';

const STATUS_TEXT: Readonly<Record<NodeStatus, string>> = {
  pending: 'Pending',
  healthy: 'Healthy',
  unhealthy: 'Unhealthy',
  disconnected: 'Disconnected',
};

/** What a node's rows say beyond what the `Node` interface tells. */
export interface NodeRowFacts {
  /** The engine's (or Kubernetes node's) own ID. */
  id: string;
  containers: { total: number; running: number; paused: number; stopped: number };
  updatedAt: Date;
  serverVersion: string;
}

/** Swarm classic's rows for one node (` name  addr`, `  └ ID`, `  └ Status`, ...), as `docker info` prints them. */
export function nodeInfoRows(node: Node, facts: NodeRowFacts): Array<[string, string]> {
  const { containers } = facts;
  const labels = Object.entries(node.labels())
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return [
    [` ${node.name || '(unknown)'}`, node.addr],
    ['  └ ID', facts.id],
    ['  └ Status', STATUS_TEXT[node.status()]],
    ['  └ Containers', `${containers.total} (${containers.running} Running, ${containers.paused} Paused, ${containers.stopped} Stopped)`],
    ['  └ Reserved CPUs', `${node.usedCpus()} / ${node.totalCpus()}`],
    ['  └ Reserved Memory', `${bytesSize(node.usedMemory())} / ${bytesSize(node.totalMemory())}`],
    ['  └ Labels', labels.join(', ')],
    ['  └ Error', node.lastError() || '(none)'],
    // RFC 3339 in UTC without fractions, as Go's time.RFC3339 prints it
    ['  └ UpdatedAt', facts.updatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')],
    ['  └ ServerVersion', facts.serverVersion],
  ];
}
