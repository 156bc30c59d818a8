import type { Node, NodeSnapshot } from '@swarm/plugin-sdk';
import type { KubeNode } from './kube-node.js';

/**
 * What swarm's scheduler sees of a node that takes no new container (cordoned, tainted, not
 * Ready): the node, unhealthy, with the reason as its error. The node itself stays healthy for
 * the containers already there, which docker commands still reach. A view lives for one
 * placement; its snapshot is the node's with those facts replaced, made once per node snapshot.
 */
export function schedulableView(node: KubeNode): Node {
  const reason = node.unavailableReason();
  if (reason === undefined) return node;
  let kept: { readonly of: NodeSnapshot; readonly snapshot: NodeSnapshot } | undefined;
  const view = Object.create(node, {
    isHealthy: { value: () => false },
    status: { value: () => 'unhealthy' },
    healthIndicator: { value: () => 0 },
    lastError: { value: () => reason },
    snapshot: {
      value: (): NodeSnapshot => {
        const of = node.snapshot();
        if (kept?.of !== of) {
          const snapshot = Object.freeze({
            ...of,
            node: view,
            status: 'unhealthy' as const,
            healthy: false,
            healthIndicator: 0,
            lastError: reason,
          });
          kept = { of, snapshot };
        }
        return kept.snapshot;
      },
    },
  }) as Node;
  return view;
}
