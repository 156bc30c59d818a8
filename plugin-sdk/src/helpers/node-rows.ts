import type { NodeStatus } from '../node.js';
import { bytesSize } from './units.js';

const STATUS_TEXT: Readonly<Record<NodeStatus, string>> = {
  pending: 'Pending',
  healthy: 'Healthy',
  unhealthy: 'Unhealthy',
  disconnected: 'Disconnected',
};

/** What one node's `docker info` rows say. */
export interface NodeRowFacts {
  name: string;
  addr: string;
  id: string;
  status: NodeStatus;
  containers: { total: number; running: number; paused: number; stopped: number };
  usedCpus: number;
  totalCpus: number;
  usedMemory: number;
  totalMemory: number;
  labels: Readonly<Record<string, string>>;
  error: string | undefined;
  updatedAt: Date;
  serverVersion: string;
}

/** Swarm classic's rows for one node (` name  addr`, `  └ ID`, `  └ Status`, ...), as `docker info` prints them. */
export function nodeInfoRows(facts: NodeRowFacts): Array<[string, string]> {
  const { containers } = facts;
  const labels = Object.entries(facts.labels)
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return [
    [` ${facts.name || '(unknown)'}`, facts.addr],
    ['  └ ID', facts.id],
    ['  └ Status', STATUS_TEXT[facts.status]],
    ['  └ Containers', `${containers.total} (${containers.running} Running, ${containers.paused} Paused, ${containers.stopped} Stopped)`],
    ['  └ Reserved CPUs', `${facts.usedCpus} / ${facts.totalCpus}`],
    ['  └ Reserved Memory', `${bytesSize(facts.usedMemory)} / ${bytesSize(facts.totalMemory)}`],
    ['  └ Labels', labels.join(', ')],
    ['  └ Error', facts.error || '(none)'],
    // RFC 3339 in UTC without fractions, as Go's time.RFC3339 prints it
    ['  └ UpdatedAt', facts.updatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')],
    ['  └ ServerVersion', facts.serverVersion],
  ];
}
