import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOn, daemonError, dockerFails, startSchedulingCluster, type SchedulingCluster } from './scheduling-support.js';

// engines 50-52, manager on 23200
const PORT = 23200;

describe('scheduling: constraints through the docker CLI over three real engines', () => {
  let cluster: SchedulingCluster;
  let host: string;

  beforeAll(async () => {
    cluster = await startSchedulingCluster(
      [
        { index: 50, labels: ['storage=ssd', 'zone=eu-1'] },
        { index: 51, labels: ['storage=disk', 'zone=eu-2'] },
        { index: 52, labels: ['storage=disk', 'zone=us-1'] },
      ],
      PORT,
    );
    host = cluster.host;
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('node, label, glob, regex and negated constraints', async () => {
    expect(await createOn(host, '-e', 'constraint:node==node51')).toBe('node51');
    expect(await createOn(host, '-e', 'constraint:storage==ssd')).toBe('node50');
    expect(await createOn(host, '-e', 'constraint:zone==us-*')).toBe('node52');
    expect(await createOn(host, '-e', 'constraint:node==/(?i)NODE5[02]/', '-e', 'constraint:zone==/^us/')).toBe('node52');
    expect(await createOn(host, '-e', 'constraint:storage!=disk')).toBe('node50');
    expect(await createOn(host, '--label', 'com.docker.swarm.constraints=["zone==eu-2"]')).toBe('node51');
  });

  it('soft constraints are preferred, then dropped', async () => {
    expect(await createOn(host, '-e', 'constraint:storage==~ssd')).toBe('node50');
    expect(['node50', 'node51', 'node52']).toContain(await createOn(host, '-e', 'constraint:storage==~nvme'));
  });

  it("refuses what no node satisfies with Swarm classic's text and the per-node breakdown", async () => {
    const stderr = await dockerFails(host, 'run', '-d', '-e', 'constraint:storage==nvme', 'busybox:local', 'true');
    expect(daemonError(stderr)).toBe(
      'Unable to find a node that satisfies the following conditions \n[available container slots]\n[storage==nvme]\n0/3 nodes are available: 3 constraint storage==nvme.',
    );
  });

  it('refuses invalid expressions with Swarm texts', async () => {
    expect(daemonError(await dockerFails(host, 'run', '-e', 'constraint:storage=ssd', 'busybox:local', 'true'))).toBe('One of operator ==, != is expected');
    expect(daemonError(await dockerFails(host, 'run', '-e', 'constraint:s==ssd', 'busybox:local', 'true'))).toBe("Key 's' is invalid");
    expect(daemonError(await dockerFails(host, 'run', '-e', 'affinity:container==a,b', 'busybox:local', 'true'))).toBe("Value 'a,b' is invalid");
  });
});
