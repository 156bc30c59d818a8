import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createSwarm, type Swarm } from '@swarm/core';
import type { ClusterEvent } from '@swarm/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';

const run = promisify(execFile);
const SWARM = fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url));
const MANAGER_PORT = 23002;

let engines: Testbed;
let manager: Manager | undefined;
const embedded: Swarm[] = [];

const docker = async (host: string, ...args: string[]): Promise<string> => (await run('docker', ['-H', host, ...args])).stdout.trim();

async function swarmCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SWARM, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  engines = await startTestbed({ first: 3, count: 2 });
}, 170_000);

afterAll(async () => {
  await manager?.stop();
  await Promise.all(embedded.map((swarm) => swarm.stop()));
  await engines?.stop();
});

describe('swarm manage with the built-in plugins on real engines', () => {
  it('runs containers for the docker CLI and explains placements with `swarm schedule --explain`', async () => {
    manager = await startManager({ discovery: engines.addrs, port: MANAGER_PORT, expectNodes: 2 });
    const explained = await swarmCli(
      'schedule',
      '--explain',
      '-H',
      manager.host,
      '-p',
      '8080:80',
      '-m',
      '16m',
      'busybox:local',
      'httpd',
      '-f',
    );
    expect(explained.code).toBe(0);
    expect(explained.stdout).toContain('Strategy: spread');
    expect(explained.stdout).toMatch(/^NODE\s+FEASIBLE\s+RANK\s+SCORE\s+REASON$/m);
    expect(explained.stdout).toMatch(/^node3\s+yes\s+[12]\s/m);
    expect(explained.stdout).toMatch(/^node4\s+yes\s+[12]\s/m);
    expect(explained.stdout).toMatch(/^Chosen: node[34]$/m);

    const constrained = await swarmCli(
      'schedule',
      '--explain',
      '-H',
      manager.host,
      '-e',
      'constraint:node==node3',
      '-c',
      '1',
      '-l',
      'tier=web',
      'busybox:local',
    );
    expect(constrained.stdout).toMatch(/^node3\s+yes\s+1\s/m);
    expect(constrained.stdout).toMatch(/^node4\s+no\s+-\s+-\s+constraint: /m);
    expect(constrained.stdout).toMatch(/^Chosen: node3$/m);

    await docker(manager.host, 'run', '-d', '--name', 'web1', '-p', '8080:80', 'busybox:local', 'httpd', '-f', '-p', '80');
    await docker(manager.host, 'run', '-d', '--name', 'web2', '-p', '8080:80', 'busybox:local', 'httpd', '-f', '-p', '80');
    const full = await swarmCli('schedule', '--explain', '-H', manager.host, '-p', '8080:80', 'busybox:local');
    // exit status 1: refused (0 placed, 2 error)
    expect(full.code).toBe(1);
    expect(full.stdout).toMatch(/^node3\s+no\s+-\s+-\s+port: /m);
    expect(full.stdout).toMatch(/^node4\s+no\s+-\s+-\s+port: /m);
    expect(full.stdout).toMatch(/^0\/2 nodes are available/m);
    expect(full.stdout).toMatch(/^Error: /m);
    await docker(manager.host, 'rm', '-f', 'web1', 'web2');
  });

  it('stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [SWARM, 'manage', '-H', 'tcp://127.0.0.1:23004', engines.addrs], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(() => output.includes('Listening for HTTP'));
    expect(output).toContain('"addr":"127.0.0.1:23004"');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('Shutting down');
  });
});

describe('embedding: two deployments in one process', () => {
  it('each manages its own engine, serves its own API and reports its own events', async () => {
    const [engine3, engine4] = engines.engines;
    const a = await createSwarm({ cluster: { discovery: engine3!.addr }, api: { hosts: ['tcp://127.0.0.1:0'] } });
    const b = await createSwarm({ cluster: { discovery: `nodes://${engine4!.addr}` }, scheduler: { strategy: 'binpack' } });
    embedded.push(a, b);
    const eventsA: ClusterEvent[] = [];
    const eventsB: ClusterEvent[] = [];
    a.on('event', (event) => eventsA.push(event));
    b.on('event', (event) => eventsB.push(event));
    let listening: readonly string[] = [];
    a.on('listening', (info) => (listening = info.addresses));
    await Promise.all([a.start({ api: true }), b.start()]);
    await until(() => a.cluster.nodes().some((node) => node.isHealthy()) && b.cluster.nodes().some((node) => node.isHealthy()));
    expect(a.cluster.nodes().map((node) => node.name)).toEqual(['node3']);
    expect(b.cluster.nodes().map((node) => node.name)).toEqual(['node4']);
    expect(a.scheduler.strategyName).toBe('spread');
    expect(b.scheduler.strategyName).toBe('binpack');
    expect(listening).toHaveLength(1);
    expect(a.addresses).toEqual(listening);
    expect(b.addresses).toEqual([]);

    await docker(listening[0]!, 'run', '-d', '--name', 'embedded1', 'busybox:local', 'sleep', '300');
    await until(() => eventsA.some((event) => event.status === 'start' || event.Action === 'start'));
    expect(a.cluster.container('embedded1')?.node.name).toBe('node3');
    expect(b.cluster.container('embedded1')).toBeUndefined();
    expect(eventsB.some((event) => event.Action === 'start')).toBe(false);
    await docker(listening[0]!, 'rm', '-f', 'embedded1');

    const stopped: string[] = [];
    a.on('stopped', () => stopped.push('a'));
    await a.stop();
    expect(stopped).toEqual(['a']);
    expect(b.cluster.nodes().map((node) => node.name)).toEqual(['node4']);
  });
});
