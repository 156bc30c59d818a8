import { afterAll, beforeAll, describe, it } from 'vitest';
import { Tokens, type Cluster, type DiscoveryBackend } from '@swarm/plugin-sdk';
import { driverConformance, noopLogger, pluginProviders, testDeployment, testScheduler } from '@swarm/plugin-sdk/testing';
import swarmDriver from '@swarm/driver-swarm';
import nodesDiscovery from '@swarm/discovery-nodes';
import { startTestbed, type Testbed } from '../harness/engines.js';

// The SDK's driver conformance suite, as a third-party author runs it, against the built-in
// "swarm" driver over a real engine (index 239): proof that the suite holds for a real driver.
let testbed: Testbed;

beforeAll(async () => {
  testbed = await startTestbed({ first: 239, count: 1 });
}, 120_000);

afterAll(async () => {
  await testbed?.stop();
});

/** The "swarm" driver as the host builds it, over nodes:// discovery of the test engine. */
function swarmCluster(): Cluster {
  const discovery = pluginProviders(nodesDiscovery)
    .get<DiscoveryBackend>(Tokens.DiscoveryBackend, 'nodes')
    .open(testbed.addrs, { heartbeat: 1, ttl: 3, options: {} });
  return pluginProviders(swarmDriver, {
    [Tokens.DeploymentConfig]: testDeployment({ driver: 'swarm', discovery: `nodes://${testbed.addrs}` }),
    [Tokens.Scheduler]: testScheduler(),
    [Tokens.Discovery]: discovery,
    [Tokens.Logger]: noopLogger,
  }).get<Cluster>(Tokens.ClusterDriver, 'swarm');
}

describe('the built-in swarm driver against the SDK driver conformance', () => {
  void driverConformance(
    { name: 'swarm', create: swarmCluster, minNodes: 1, runnable: { Image: 'busybox:local', Cmd: ['sleep', '30'] } },
    { it },
  );
});
