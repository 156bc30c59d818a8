import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodesDiscoveryBackend } from '@swarm/discovery-nodes';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { buildSwarm, eventually } from './driver-swarm-support.js';

// engines 15-16
const FIRST = 15;
const options = { heartbeat: 1, ttl: 20, options: {} };

describe('driver-swarm discovery: nodes:// and file:// with live edits', () => {
  let testbed: Testbed;
  let dir: string;

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 2 });
    dir = mkdtempSync(join(tmpdir(), 'swarm-file-discovery-'));
  });

  afterAll(async () => {
    await testbed?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('follows edits of a discovery file: engines join and leave within a heartbeat or two', async () => {
    const file = join(dir, 'cluster');
    writeFileSync(file, `# the first engine only\n${testbed.engines[0]!.addr}\n\n`);
    const { swarm, cluster } = await buildSwarm(`file://${file}`);
    try {
      await swarm.start();
      expect(cluster.nodes().map((node) => node.name)).toEqual([`node${FIRST}`]);

      writeFileSync(file, `127.0.0.[${FIRST + 1}:${FIRST + 2}]:2375  \n# a comment\n`);
      await eventually(
        'second engine joined',
        () => cluster.nodes().some((node) => node.name === `node${FIRST + 1}` && node.isHealthy()),
        10_000,
      );
      expect(cluster.nodes()).toHaveLength(2);

      writeFileSync(file, `${testbed.engines[1]!.addr}\n`);
      await eventually('first engine left', () => cluster.nodes().length === 1, 10_000);
      expect(cluster.nodes()[0]!.name).toBe(`node${FIRST + 1}`);
      expect(cluster.containers().every((container) => container.node.name === `node${FIRST + 1}`)).toBe(true);

      // a broken edit is reported and ignored: the last good list stays in force
      writeFileSync(file, 'not an address\n');
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(cluster.nodes().map((node) => node.name)).toEqual([`node${FIRST + 1}`]);
    } finally {
      await swarm.stop();
    }
  });

  it('starts without a discovery file that is not there yet and picks it up once written', async () => {
    const file = join(dir, 'later');
    const { swarm, cluster } = await buildSwarm(`file://${file}`);
    try {
      await swarm.start();
      expect(cluster.nodes()).toHaveLength(0);
      writeFileSync(file, `${testbed.engines[0]!.addr}\n`);
      await eventually('engine from the new file', () => cluster.nodes()[0]?.isHealthy(), 10_000);
    } finally {
      await swarm.stop();
    }
  });

  it('refuses to start on a malformed discovery file, naming the line', async () => {
    const file = join(dir, 'broken');
    writeFileSync(file, `${testbed.engines[0]!.addr}\n127.0.0.5\n`);
    const { swarm } = await buildSwarm(`file://${file}`);
    const failure = await swarm.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSwarmError(failure, ErrorCodes.DISCOVERY_INVALID)).toBe(true);
    expect((failure as Error).message).toBe(
      `${file} line 2: invalid discovery entry "127.0.0.5": expected host:port (for example 127.0.0.2:2375)`,
    );
  });

  it('rejects malformed nodes:// lists with a clear text', () => {
    const backend = new NodesDiscoveryBackend();
    expect(() => backend.open('127.0.0.1', options)).toThrow('invalid discovery entry "127.0.0.1": expected host:port');
    expect(() => backend.open('127.0.0.[9:3]:2375', options)).toThrow('invalid discovery range "127.0.0.[9:3]:2375": 9 is greater than 3');
    expect(() => backend.open('', options)).toThrow('empty discovery list');
    expect(() => backend.open('127.0.0.1:99999', options)).toThrow(/expected host:port/);
  });

  it('refuses to start swarm on a malformed nodes:// list', async () => {
    const failure = await buildSwarm('nodes://127.0.0.[9:3]:2375')
      .then(({ swarm }) => swarm.start())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isSwarmError(failure, ErrorCodes.DISCOVERY_INVALID)).toBe(true);
    expect((failure as Error).message).toContain('invalid discovery range "127.0.0.[9:3]:2375": 9 is greater than 3');
  });
});
