import { Tokens, definePlugin, type DeploymentConfig, type Logger, type Scheduler } from '@swarm/plugin-sdk';
import { KubernetesCluster } from './kubernetes-cluster.js';

export const plugin = definePlugin({
  name: '@swarm/driver-kubernetes',
  version: '1.0.0',
  apiVersion: '^1.4.0',
  description: 'Cluster driver "kubernetes": one pod per container on any Kubernetes cluster, placed by swarm',
  register(ctx) {
    ctx.driver(
      'kubernetes',
      {
        useFactory: (r) =>
          new KubernetesCluster({
            config: r.resolve<DeploymentConfig>(Tokens.DeploymentConfig),
            scheduler: r.resolve<Scheduler>(Tokens.Scheduler),
            logger: r.resolve<Logger>(Tokens.Logger),
          }),
      },
      // the API server is the discovery: `swarm manage -c kubernetes` needs no argument
      { discovery: 'optional' },
    );
  },
});

export default plugin;
