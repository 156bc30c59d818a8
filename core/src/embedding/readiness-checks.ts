import type { ReadinessCheck, ReadinessProbe } from '../api/readiness.js';
import type { Deployment } from '../deployment/deployment.js';
import type { ReplicationController } from '../replication/index.js';

export interface ReadinessDeps {
  readonly deployment: Deployment;
  readonly replication: ReplicationController | undefined;
  /** True once the manager has begun to stop: it should get no new traffic. */
  readonly stopping: () => boolean;
}

/**
 * What makes a manager worth sending traffic to: it is not stopping, its discovery answered (or
 * the driver finds nodes itself), and, replicated, it is the primary or a replica that knows the
 * primary to forward to.
 */
export function readinessChecks({ deployment, replication, stopping }: ReadinessDeps): ReadinessProbe {
  return () => {
    const checks: ReadinessCheck[] = [
      stopping() ? { name: 'shutdown', ok: false, reason: 'the manager is stopping' } : { name: 'shutdown', ok: true, reason: 'serving' },
      discoveryCheck(deployment),
    ];
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

function roleCheck(replication: ReplicationController): ReadinessCheck {
  if (replication.isPrimary) return { name: 'role', ok: true, reason: 'primary' };
  const primary = replication.primary;
  if (primary !== undefined && primary !== replication.advertise) return { name: 'role', ok: true, reason: `replica of ${primary}` };
  return { name: 'role', ok: false, reason: 'replica that knows no primary to forward to yet' };
}
