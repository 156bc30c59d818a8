import type { Cluster, ClusterCapabilities } from '@swarm/plugin-sdk';
import { CoreErrors } from '../errors.js';

/**
 * The cluster's capability `key`, or Docker's 501 naming the driver (`volume create is not
 * supported with mesos`) when the driver does not offer it.
 */
export function capability<K extends keyof ClusterCapabilities>(
  cluster: Cluster,
  key: K,
  operation: string,
): NonNullable<ClusterCapabilities[K]> {
  const offered = cluster.capabilities?.[key];
  if (offered === undefined) throw CoreErrors.notSupportedByDriver({ operation, driver: cluster.driverName });
  return offered as NonNullable<ClusterCapabilities[K]>;
}
