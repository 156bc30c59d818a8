import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import {
  countsByNode,
  createOn,
  daemonError,
  docker,
  dockerFails,
  removeAll,
  runOn,
  startSchedulingCluster,
  type SchedulingCluster,
} from './scheduling-support.js';

// engines 57-59, managers on 23203 (spread) and 23204 (binpack)
const PORTS = { spread: 23203, binpack: 23204 };
const ENGINES = [57, 58, 59];
const NODES = ENGINES.map((index) => `node${index}`);
const NO_RESOURCES = 'no resources available to schedule container\n0/3 nodes are available: 3 insufficient resources.';

describe('scheduling: spread and binpack, over-asks and parallel runs through the docker CLI over three real engines', () => {
  let cluster: SchedulingCluster;
  let host: string;
  let memTotal: number;
  let ncpu: number;

  beforeAll(async () => {
    cluster = await startSchedulingCluster(
      ENGINES.map((index) => ({ index })),
      PORTS.spread,
    );
    host = cluster.host;
    const [mem, cpus] = (await docker('tcp://127.0.0.58:2375', 'info', '--format', '{{.MemTotal}} {{.NCPU}}')).split(' ');
    memTotal = Number(mem);
    ncpu = Number(cpus);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('spread places six containers with -m 2-2-2', async () => {
    const sixth = String(Math.floor(memTotal / 6));
    for (let i = 0; i < 6; i++) await createOn(host, '-m', sixth);
    expect(await countsByNode(host)).toEqual(Object.fromEntries(NODES.map((node) => [node, 2])));
    await removeAll(host);
  });

  it('binpack fills one node with six, the seventh goes to the next', async () => {
    let binpack: Manager | undefined;
    try {
      binpack = await startManager({
        discovery: ENGINES.map((index) => `127.0.0.${index + 1}:2375`).join(','),
        port: PORTS.binpack,
        expectNodes: 3,
        args: ['--strategy', 'binpack'],
      });
      const sixth = String(Math.floor(memTotal / 6));
      const placed = [];
      for (let i = 0; i < 6; i++) placed.push(await createOn(binpack.host, '-m', sixth));
      expect(new Set(placed).size).toBe(1);
      const seventh = await createOn(binpack.host, '-m', sixth);
      expect(seventh).not.toBe(placed[0]);
      await removeAll(binpack.host);
    } finally {
      await binpack?.stop();
    }
  });

  it('refuses memory and CPU over-asks', async () => {
    // Twice the memory: swarm.overcommit (default 5%) lets a node take a little more than it has.
    expect(daemonError(await dockerFails(host, 'run', '-d', '-m', String(2 * memTotal), 'busybox:local', 'true'))).toBe(NO_RESOURCES);
    expect(daemonError(await dockerFails(host, 'run', '-d', '-c', String(ncpu + 1), 'busybox:local', 'true'))).toBe(NO_RESOURCES);
  });

  it('parallel runs never over-commit CPUs; the cluster then fills to exactly its capacity', async () => {
    await removeAll(host);
    const capacity = ncpu * ENGINES.length;
    await Promise.allSettled(Array.from({ length: capacity + 3 }, () => runOn(host, '-c', '1')));
    const afterParallel = await countsByNode(host);
    for (const count of Object.values(afterParallel)) expect(count).toBeLessThanOrEqual(ncpu);
    for (let free = capacity - Object.values(afterParallel).reduce((a, b) => a + b, 0); free > 0; free--) await runOn(host, '-c', '1');
    expect(await countsByNode(host)).toEqual(Object.fromEntries(NODES.map((node) => [node, ncpu])));
    expect(daemonError(await dockerFails(host, 'run', '-d', '-c', '1', 'busybox:local', 'true'))).toBe(NO_RESOURCES);
  });
});
