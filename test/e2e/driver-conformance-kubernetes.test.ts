import { afterAll, beforeAll, describe, it } from 'vitest';
import { Tokens, type Cluster } from '@swarm/plugin-sdk';
import { driverConformance, noopLogger, pluginProviders, testDeployment, testScheduler } from '@swarm/plugin-sdk/testing';
import kubernetesDriver from '@swarm/driver-kubernetes';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';

// The SDK's driver conformance suite, as a third-party author runs it, against the built-in
// "kubernetes" driver: the Kubernetes API server double, whose kubelets run pods as real
// containers on two engines. Indexes 243-244 belong to this file (the double listens on a port the
// system picks; ports 26215-26219 are kept for this file all the same).
let testbed: Testbed;
let double: KubernetesDouble;

beforeAll(async () => {
  testbed = await startTestbed({ first: 243, count: 2 });
  double = await startKubernetesDouble({
    nodes: testbed.engines.map((engine) => ({ engine: { host: engine.host, port: engine.port } })),
    kubelet: { backoffInitialSeconds: 1, backoffMaxSeconds: 4 },
  });
}, 120_000);

afterAll(async () => {
  await double?.stop();
  await testbed?.stop();
});

/** The "kubernetes" driver as the host builds it, over the double's kubeconfig. */
function kubernetesCluster(): Cluster {
  const options = { 'kubernetes.kubeconfig': double.kubeconfig, 'kubernetes.namespace': 'default' };
  return pluginProviders(kubernetesDriver, {
    [Tokens.DeploymentConfig]: testDeployment({ driver: 'kubernetes', options }),
    [Tokens.Scheduler]: testScheduler(),
    [Tokens.Logger]: noopLogger,
  }).get<Cluster>(Tokens.ClusterDriver, 'kubernetes');
}

describe('the built-in kubernetes driver against the SDK driver conformance', () => {
  void driverConformance(
    {
      name: 'kubernetes',
      create: kubernetesCluster,
      minNodes: 2,
      nodesWithinMs: 20_000,
      runnable: { Image: 'busybox:local', Cmd: ['sleep', '30'] },
    },
    { it },
  );
});
