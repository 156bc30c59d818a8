import { Tokens, definePlugin, type DeploymentConfig, type Logger, type Scheduler } from '@swarm/plugin-sdk';
import { KubernetesCluster } from './kubernetes-cluster.js';
import { KubernetesDiscovery } from './lease-discovery.js';

export const plugin = definePlugin({
  name: '@swarm/driver-kubernetes',
  version: '1.0.0',
  apiVersion: '^2.0.0',
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
    // `k8s://` finds no engines (the driver reads nodes itself); replicated managers elect through it
    ctx.discovery('k8s', { useFactory: (r) => new KubernetesDiscovery(r.resolve<DeploymentConfig>(Tokens.DeploymentConfig)) });
  },
});

export default plugin;
