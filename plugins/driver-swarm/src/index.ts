import { Tokens, definePlugin, type DeploymentConfig, type Discovery, type Logger, type Scheduler } from '@swarm/plugin-sdk';
import { SwarmCluster } from './swarm-cluster.js';

export const plugin = definePlugin({
  name: '@swarm/driver-swarm',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: 'Cluster driver "swarm": swarm schedules containers itself across a pool of Docker engines',
  register(ctx) {
    ctx.driver('swarm', {
      useFactory: (resolver) =>
        new SwarmCluster({
          config: resolver.resolve<DeploymentConfig>(Tokens.DeploymentConfig),
          scheduler: resolver.resolve<Scheduler>(Tokens.Scheduler),
          discovery: resolver.resolve<Discovery>(Tokens.Discovery),
          logger: resolver.resolve<Logger>(Tokens.Logger),
        }),
    });
  },
});

export default plugin;
