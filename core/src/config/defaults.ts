/** Swarm classic 1.2's defaults (cli/flags.go). */
export const DEFAULT_FILTERS: readonly string[] = ['health', 'port', 'containerslots', 'dependency', 'affinity', 'constraint', 'whitelist'];

export const Defaults = {
  driver: 'swarm',
  strategy: 'spread',
  filters: DEFAULT_FILTERS,
  host: 'tcp://127.0.0.1:2375',
  heartbeatSeconds: 60,
  engineRefreshMinSeconds: 30,
  engineRefreshMaxSeconds: 60,
  engineFailureRetry: 3,
  replicationTtlSeconds: 20,
  /** How long a stopping manager lets requests in flight finish. */
  shutdownTimeoutSeconds: 10,
  /** Healthy nodes a manager needs to call itself ready. */
  readyMinNodes: 1,
  logLevel: 'info',
  /** Where Swarm classic keeps engine entries in a key-value store (getDiscoveryOpt). */
  kvPath: 'docker/swarm/nodes',
} as const;
