import { Tokens, definePlugin, type DeploymentConfig, type Logger, type Scheduler } from '@swarm/plugin-sdk';
import { MesosCluster } from './mesos-cluster.js';

export const plugin = definePlugin({
  name: '@swarm/driver-mesos',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: 'Cluster driver "mesos": swarm as an Apache Mesos framework',
  register(ctx) {
    ctx.driver('mesos', {
      useFactory: (r) =>
        new MesosCluster({
          config: r.resolve<DeploymentConfig>(Tokens.DeploymentConfig),
          scheduler: r.resolve<Scheduler>(Tokens.Scheduler),
          logger: r.resolve<Logger>(Tokens.Logger),
        }),
    });
  },
});

export default plugin;
