/**
 * DI tokens. They are plain strings (not symbols or classes) so that a plugin built against
 * another copy of the SDK still registers under the same keys as the host.
 */
export const Tokens = {
  // host services (root container)
  HostConfig: 'swarm:HostConfig',
  Logger: 'swarm:Logger',
  Clock: 'swarm:Clock',
  EventBus: 'swarm:EventBus',
  // deployment services (one child container per deployment)
  DeploymentConfig: 'swarm:DeploymentConfig',
  ClusterOptions: 'swarm:ClusterOptions',
  StrategyOptions: 'swarm:StrategyOptions',
  Scheduler: 'swarm:Scheduler',
  Discovery: 'swarm:Discovery',
  Cluster: 'swarm:Cluster',
  // plugin extension points: the host registers each provider under `${kind}:${name}`
  ClusterDriver: 'swarm:ClusterDriver',
  Filter: 'swarm:Filter',
  Strategy: 'swarm:Strategy',
  DiscoveryBackend: 'swarm:DiscoveryBackend',
  /** HTTP routes served under `/swarm/<name>/` (see web.ts). */
  WebExtension: 'swarm:WebExtension',
  /** Access plugins (plugin API 2.1; see access.ts): each provider is a factory taking the entry's options. */
  Authenticator: 'swarm:Authenticator',
  Authorizer: 'swarm:Authorizer',
  AdmissionController: 'swarm:AdmissionController',
} as const;

export type ExtensionKind =
  | typeof Tokens.ClusterDriver
  | typeof Tokens.Filter
  | typeof Tokens.Strategy
  | typeof Tokens.DiscoveryBackend
  | typeof Tokens.WebExtension
  | typeof Tokens.Authenticator
  | typeof Tokens.Authorizer
  | typeof Tokens.AdmissionController;
