import type { Node } from '@swarm/plugin-sdk';
import type { KubeNode } from './kube-node.js';

/**
 * What swarm's scheduler sees of a node that takes no new container (cordoned, tainted, not
 * Ready): the node, unhealthy, with the reason as its error. The node itself stays healthy for
 * the containers already there, which docker commands still reach.
 */
export function schedulableView(node: KubeNode): Node {
  const reason = node.unavailableReason();
  if (reason === undefined) return node;
  return Object.create(node, {
    isHealthy: { value: () => false },
    status: { value: () => 'unhealthy' },
    healthIndicator: { value: () => 0 },
    lastError: { value: () => reason },
    watch: { value: undefined },
  }) as Node;
}
