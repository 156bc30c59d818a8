import type { ReadinessCheck, ReadinessProbe } from '../api/readiness.js';
import type { Deployment } from '../deployment/deployment.js';
import type { ReplicationController } from '../replication/index.js';

export interface ReadinessDeps {
  readonly deployment: Deployment;
  readonly replication: ReplicationController | undefined;
  /** True once the manager has begun to stop: it should get no new traffic. */
  readonly stopping: () => boolean;
  /** Healthy nodes needed (`--ready-min-nodes`); 0 leaves the nodes out of readiness. */
  readonly minNodes: number;
}

/**
 * What makes a manager worth sending traffic to: it is not stopping, its discovery answered (or
 * the driver finds nodes itself), at least `minNodes` of its nodes are healthy (a manager with no
 * engine to run containers on cannot do its job, however well it answers), and, replicated, it is
 * the primary or a replica that knows the primary to forward to.
 */
export function readinessChecks({ deployment, replication, stopping, minNodes }: ReadinessDeps): ReadinessProbe {
  return () => {
    const checks: ReadinessCheck[] = [
      stopping() ? { name: 'shutdown', ok: false, reason: 'the manager is stopping' } : { name: 'shutdown', ok: true, reason: 'serving' },
      discoveryCheck(deployment),
    ];
    if (minNodes > 0) checks.push(nodesCheck(deployment, minNodes));
    if (replication) checks.push(roleCheck(replication));
    return checks;
  };
}

function discoveryCheck(deployment: Deployment): ReadinessCheck {
  const status = deployment.discoveryStatus();
  switch (status.state) {
    case 'ok':
      return { name: 'discovery', ok: true, reason: `${status.entries ?? 0} entries from ${status.uri}` };
    case 'driver':
      return { name: 'discovery', ok: true, reason: 'the cluster driver finds its nodes itself' };
    case 'waiting':
      return { name: 'discovery', ok: false, reason: `no answer from ${status.uri} yet` };
    case 'failing':
      return { name: 'discovery', ok: false, reason: `${status.uri}: ${status.lastError ?? 'failing'}` };
  }
}

function nodesCheck(deployment: Deployment, minNodes: number): ReadinessCheck {
  const nodes = deployment.cluster().nodes();
  const healthy = nodes.filter((node) => node.status() === 'healthy').length;
  const counted = `${healthy} of ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'} healthy`;
  if (healthy >= minNodes) return { name: 'nodes', ok: true, reason: counted };
  return { name: 'nodes', ok: false, reason: `${counted}, ${minNodes} needed (--ready-min-nodes)` };
}

function roleCheck(replication: ReplicationController): ReadinessCheck {
  if (replication.isPrimary) return { name: 'role', ok: true, reason: 'primary' };
  const primary = replication.primary;
  if (primary !== undefined && primary !== replication.advertise) return { name: 'role', ok: true, reason: `replica of ${primary}` };
  return { name: 'role', ok: false, reason: 'replica that knows no primary to forward to yet' };
}
