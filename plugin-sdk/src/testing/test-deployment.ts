import type { ClusterSettings, DeploymentConfig } from '../config.js';

/**
 * A deployment's configuration as the host resolves it, for building a driver in a test under
 * `Tokens.DeploymentConfig`: the cluster settings given, the host's defaults for the rest
 * (heartbeat 60 s, engine refresh 30-60 s, 3 failures before unhealthy).
 */
export function testDeployment(cluster: Partial<ClusterSettings> & Pick<ClusterSettings, 'driver'>): DeploymentConfig {
  return {
    plugins: [],
    cluster: {
      discovery: '',
      options: {},
      discoveryOptions: {},
      heartbeat: 60,
      engineRefreshMinInterval: 30,
      engineRefreshMaxInterval: 60,
      engineFailureRetry: 3,
      ...cluster,
    },
    scheduler: { filters: [], strategy: 'spread', strategyOptions: {} },
    api: { hosts: [], cors: false, shutdownTimeout: 10 },
    replication: { enabled: false, ttl: 20 },
    web: {},
    logLevel: 'info',
  };
}
