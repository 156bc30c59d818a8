import type { NodeSnapshot, NodeStatus } from '../node.js';
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

/**
 * Swarm classic's rows for one node (` name  addr`, `  └ ID`, `  └ Status`, ...), as `docker info`
 * prints them, from a snapshot of the node (`node.snapshot()` for its current one).
 */
export function nodeInfoRows(snapshot: NodeSnapshot, facts: NodeRowFacts): Array<[string, string]> {
  const { containers } = facts;
  const labels = Object.entries(snapshot.labels)
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return [
    [` ${snapshot.name || '(unknown)'}`, snapshot.node.addr],
    ['  └ ID', facts.id],
    ['  └ Status', STATUS_TEXT[snapshot.status]],
    ['  └ Containers', `${containers.total} (${containers.running} Running, ${containers.paused} Paused, ${containers.stopped} Stopped)`],
    ['  └ Reserved CPUs', `${snapshot.usedCpus} / ${snapshot.totalCpus}`],
    ['  └ Reserved Memory', `${bytesSize(snapshot.usedMemory)} / ${bytesSize(snapshot.totalMemory)}`],
    ['  └ Labels', labels.join(', ')],
    ['  └ Error', snapshot.lastError || '(none)'],
    // RFC 3339 in UTC without fractions, as Go's time.RFC3339 prints it
    ['  └ UpdatedAt', facts.updatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')],
    ['  └ ServerVersion', facts.serverVersion],
  ];
}
