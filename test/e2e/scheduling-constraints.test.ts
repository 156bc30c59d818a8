import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlacementExplanation } from '@swarm/plugin-sdk';
import { createOn, daemonError, docker, dockerFails, startSchedulingCluster, type SchedulingCluster } from './scheduling-support.js';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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

  it("refuses a malformed expression in Swarm classic's words, naming the filter and the expression, and creates nothing", async () => {
    const before = await docker(host, 'ps', '-aq');
    const header = 'Unable to find a node that satisfies the following conditions \n[available container slots]\n';
    const refused = async (...flags: string[]) => daemonError(await dockerFails(host, 'run', '-d', ...flags, 'busybox:local', 'true'));
    // one bad -e among several good ones
    expect(await refused('-e', 'constraint:zone==eu-*', '-e', 'constraint:node=!!bad', '-e', 'constraint:storage!=disk')).toBe(
      `${header}error from constraint filter: One of operator ==, != is expected\n` +
        'invalid constraint "node=!!bad": write key==value or key!=value (a value starting with ~ is soft)',
    );
    expect(await refused('-e', 'constraint:s==ssd')).toBe(
      `${header}error from constraint filter: Key 's' is invalid\n` +
        'invalid constraint "s==ssd": a key is a letter or _ followed by at least one letter, digit, -, _, . or /',
    );
    expect(await refused('-e', 'affinity:container==a,b')).toMatch(
      new RegExp(`^${escape(header)}error from affinity filter: Value 'a,b' is invalid\ninvalid affinity "container==a,b": a value is `),
    );
    // the label forms, and the conditions of the filters before the failing one
    expect(await refused('--label', 'com.docker.swarm.constraints=["zone==eu-1","zone=eu-2"]')).toBe(
      `${header}error from constraint filter: One of operator ==, != is expected\n` +
        'invalid constraint "zone=eu-2": write key==value or key!=value (a value starting with ~ is soft)',
    );
    expect(
      await refused('--label', 'com.docker.swarm.affinities=["image==busybox:local"]', '--label', 'com.docker.swarm.constraints=["x==1"]'),
    ).toBe(
      `${header}[image==busybox:local (soft=false)]\nerror from constraint filter: Key 'x' is invalid\n` +
        'invalid constraint "x==1": a key is a letter or _ followed by at least one letter, digit, -, _, . or /',
    );
    expect(await refused('-e', 'affinity:container!=~', '-e', 'constraint:node==node50')).toMatch(
      /error from affinity filter: Value '~' is invalid/,
    );
    expect(await docker(host, 'ps', '-aq')).toBe(before);
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
