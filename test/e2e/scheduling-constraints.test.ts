import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlacementExplanation } from '@swarm/plugin-sdk';
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
    expect(daemonError(await dockerFails(host, 'run', '-e', 'constraint:storage=ssd', 'busybox:local', 'true'))).toBe(
      'One of operator ==, != is expected',
    );
    expect(daemonError(await dockerFails(host, 'run', '-e', 'constraint:s==ssd', 'busybox:local', 'true'))).toBe("Key 's' is invalid");
    expect(daemonError(await dockerFails(host, 'run', '-e', 'affinity:container==a,b', 'busybox:local', 'true'))).toBe(
      "Value 'a,b' is invalid",
    );
  });

  it('swarm schedule --explain reports every node with its verdicts and the ranking', async () => {
    const bin = fileURLToPath(new URL('../../core/dist/cli/bin.js', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [
      bin,
      'schedule',
      '--explain',
      '--json',
      '-H',
      host,
      '-e',
      'constraint:zone==eu-*',
      'busybox:local',
    ]);
    const explanation = JSON.parse(stdout) as PlacementExplanation;
    expect(explanation.summary).toBe('2/3 nodes are available: 1 constraint zone==eu-*.');
    expect(explanation.nodes.find((node) => node.name === 'node52')?.verdicts.at(-1)).toMatchObject({
      filter: 'constraint',
      pass: false,
      reason: 'constraint zone==eu-*',
    });
    expect(
      explanation.nodes
        .filter((node) => node.rank !== undefined)
        .map((node) => node.name)
        .sort(),
    ).toEqual(['node50', 'node51']);
    expect(['node50', 'node51']).toContain(explanation.chosen);
  });
});
