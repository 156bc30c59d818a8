import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import { startHollowCluster, type HollowCluster } from '@swarm/core/hollow';

// 400 hollow engines (slots 1400-1799, free ports) behind a manager whose open-files limit is 1,024:
// an event stream per engine plus kept-alive connections used to take every descriptor, and the API
// then reset its clients. The driver now shares the limit out and keeps a reserve for the API.
const run = promisify(execFile);
const COUNT = 400;
const PORT = 26193;
const OPEN_FILES = 1024;
let cluster: HollowCluster;
let manager: Manager;

const docker = async (...args: string[]): Promise<string> =>
  (await run('docker', ['-H', `tcp://127.0.0.1:${PORT}`, ...args], { maxBuffer: 16 * 2 ** 20 })).stdout.trim();

const openDescriptors = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

beforeAll(async () => {
  cluster = await startHollowCluster({ count: COUNT, containersPerEngine: 3, delayMs: 1, firstSlot: 1400, ephemeralPorts: true });
  manager = await startManager({
    discovery: `nodes://${cluster.addrs}`,
    port: PORT,
    expectNodes: COUNT,
    openFiles: OPEN_FILES,
    timeoutMs: 60_000,
    args: ['--engine-refresh-min-interval', '1s', '--engine-refresh-max-interval', '2s'],
  });
}, 90_000);

afterAll(async () => {
  await manager?.stop();
  await cluster?.stop();
});

describe('swarm manage with more engines than kept-alive connections fit in its open files', () => {
  it('keeps answering clients while every engine refreshes each second, within its open-files limit', async () => {
    let mostOpen = openDescriptors(manager.pid);
    const sampler = setInterval(() => (mostOpen = Math.max(mostOpen, openDescriptors(manager.pid))), 50);
    try {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, index) => (index % 2 === 0 ? docker('info', '--format', '{{.Containers}}') : docker('ps', '-aq'))),
      );
      for (const [index, answer] of answers.entries()) {
        if (index % 2 === 0) expect(answer).toBe(String(COUNT * 3));
        else expect(answer.split('\n')).toHaveLength(COUNT * 3);
      }
      const id = await docker('run', '-d', 'busybox:local', 'sleep', '60');
      expect(await docker('inspect', '--format', '{{.State.Running}}', id)).toBe('true');
      await docker('rm', '-f', id);
    } finally {
      clearInterval(sampler);
    }
    expect(mostOpen).toBeLessThan(OPEN_FILES);
    expect(manager.output()).not.toContain('open files limit');
    expect(manager.running()).toBe(true);
  }, 60_000);
});

describe('swarm manage under an open-files limit too low for its engines', () => {
  it('says at start-up which limit it needs and how to raise it', async () => {
    const low = await startManager({
      discovery: `nodes://${cluster.addrs}`,
      port: PORT + 1,
      expectNodes: 0,
      openFiles: 512,
    });
    try {
      const deadline = Date.now() + 10_000;
      while (!low.output().includes('open files limit') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(low.output()).toContain(
        `the open files limit (512) is too low for ${COUNT} engines: each holds an event stream, and the API needs files for its clients; raise it to at least 1024 (ulimit -n 1024`,
      );
    } finally {
      await low.stop();
    }
  }, 30_000);
});
