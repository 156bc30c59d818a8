import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Tokens, type Cluster } from '@swarm/plugin-sdk';
import { driverConformance, noopLogger, pluginProviders, testDeployment, testScheduler } from '@swarm/plugin-sdk/testing';
import mesosDriver from '@swarm/driver-mesos';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';

// The SDK's driver conformance suite, as a third-party author runs it, against the built-in
// "mesos" driver: the Mesos master double in front of one real agent engine.
// Index 242 and ports 26210-26214 belong to this file.
const MASTER_PORT = 26210;
const stateDir = mkdtempSync(join(tmpdir(), 'swarm-mesos-conformance-'));
let testbed: Testbed;
let master: MesosMasterDouble;
let created = 0;

beforeAll(async () => {
  testbed = await startTestbed({ first: 242, count: 1 });
  master = await startMesosMaster({
    agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port })),
    port: MASTER_PORT,
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
  });
}, 120_000);

afterAll(async () => {
  await master?.stop();
  await testbed?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** The "mesos" driver as the host builds it: each check registers a framework of its own (its own state file). */
function mesosCluster(): Cluster {
  const discovery = `mesos://127.0.0.1:${MASTER_PORT}`;
  const options = {
    'mesos.tasktimeout': '10s',
    'mesos.offerrefusetimeout': '1s',
    'mesos.statefile': join(stateDir, `framework-${created++}.json`),
  };
  return pluginProviders(mesosDriver, {
    [Tokens.DeploymentConfig]: testDeployment({ driver: 'mesos', discovery, options }),
    [Tokens.Scheduler]: testScheduler(),
    [Tokens.Logger]: noopLogger,
  }).get<Cluster>(Tokens.ClusterDriver, 'mesos');
}

describe('the built-in mesos driver against the SDK driver conformance', () => {
  void driverConformance(
    {
      name: 'mesos',
      create: mesosCluster,
      minNodes: 1,
      nodesWithinMs: 20_000,
      // Mesos places only what says its resources (-c and/or -m)
      runnable: { Image: 'busybox:local', Cmd: ['sleep', '30'], HostConfig: { Memory: 64 * 1024 * 1024 } },
    },
    { it },
  );
});
