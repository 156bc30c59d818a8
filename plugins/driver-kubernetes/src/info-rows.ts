import { nodeInfoRows } from '@swarm/plugin-sdk/helpers';
import type { KubeNode } from './kube-node.js';

export interface InfoInputs {
  strategy: string;
  filters: readonly string[];
  nodes: readonly KubeNode[];
  server: string;
  namespace: string;
  /** The API server's state: `Healthy`, or why it cannot be used. */
  apiStatus: string;
}

/** Swarm classic's rows (role, scheduler, each node), then the API server's. */
export function infoRows(inputs: InfoInputs): Array<[string, string]> {
  const sorted = [...inputs.nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows: Array<[string, string]> = [
    ['Role', 'primary'],
    ['Strategy', inputs.strategy],
    ['Filters', inputs.filters.join(', ')],
    ['Nodes', String(sorted.length)],
  ];
  for (const node of sorted) {
    const containers = node.containers();
    const running = containers.filter((container) => container.state === 'running').length;
    rows.push(
      ...nodeInfoRows(node.snapshot(), {
        id: node.id,
        containers: { total: containers.length, running, paused: 0, stopped: containers.length - running },
        updatedAt: node.updatedAt,
        serverVersion: node.version,
      }),
    );
  }
  rows.push(['Kubernetes API', inputs.server], ['Kubernetes Namespace', inputs.namespace], ['Kubernetes Status', inputs.apiStatus]);
  return rows;
}
