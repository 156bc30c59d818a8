import { Tokens, definePlugin, type DeploymentConfig, type Discovery, type Logger, type Scheduler } from '@swarm/plugin-sdk';
import { SwarmCluster } from './swarm-cluster.js';

export { SwarmCluster } from './swarm-cluster.js';
export { EngineNode, type NodeChangeListener } from './engine-node.js';
export { EngineContainer, configFromInspect, pendingContainer, cpusToShares, sharesToCpus } from './engine-container.js';
export { shared } from './shared-json.js';
export { ContainerIndex } from './container-index.js';
export { infoRows } from './info-rows.js';
export { rowFromInspect, statusText, humanDuration } from './container-row.js';
export { CoalescingRunner } from './coalescing-runner.js';
export { readClusterOptions, type SwarmClusterOptions } from './cluster-options.js';
export { matchImage, parseRepositoryTag } from './image-match.js';

export const plugin = definePlugin({
  name: '@swarm/driver-swarm',
  version: '1.0.0',
  apiVersion: '^1.0.0',
  description: 'Cluster driver "swarm": swarm schedules containers itself across a pool of Docker engines',
  register(ctx) {
    ctx.driver('swarm', {
      useFactory: (resolver) =>
        new SwarmCluster(
          resolver.resolve<DeploymentConfig>(Tokens.DeploymentConfig),
          resolver.resolve<Scheduler>(Tokens.Scheduler),
          resolver.resolve<Discovery>(Tokens.Discovery),
          resolver.resolve<Logger>(Tokens.Logger),
        ),
    });
  },
});

export default plugin;
