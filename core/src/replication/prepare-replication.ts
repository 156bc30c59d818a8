import { Tokens, type DeploymentConfig, type Discovery, type Logger } from '@swarm/plugin-sdk';
import { LEADER_ELECTION_PATH } from '@swarm/plugin-sdk/helpers';
import type { Deployment } from '../deployment/deployment.js';
import { primaryEndpoint } from './primary-endpoint.js';
import { ReplicationController } from './replication-controller.js';
import { CoreErrors } from '../errors.js';

/**
 * With `replication.enabled`, the controller that campaigns through the deployment's discovery
 * store once started (and that the API front asks about its role); undefined otherwise. Throws
 * at once when the discovery cannot elect a primary.
 */
export function prepareReplication(deployment: Deployment, config: DeploymentConfig, logger: Logger): ReplicationController | undefined {
  const { enabled, advertise, ttl } = config.replication;
  if (!enabled) return undefined;
  if (!advertise) throw CoreErrors.replicationNeedsAdvertise();
  const discovery = deployment.container.resolve<Discovery>(Tokens.Discovery);
  if (!discovery.leadership) {
    throw CoreErrors.replicationNeedsKvStore({ discovery: config.cluster.discovery });
  }
  const controller = new ReplicationController({
    election: discovery.leadership(LEADER_ELECTION_PATH, ttl),
    advertise,
    ttlSeconds: ttl,
    logger,
    endpointFor: (address) => primaryEndpoint(address, config.api.tls),
    onRoleChange: (role) => deployment.cluster().setRole?.(role),
  });
  return controller;
}
