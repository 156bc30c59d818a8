import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Swarm } from '@swarm/core';
import type { SwarmCluster } from '../../plugins/driver-swarm/src/swarm-cluster.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { buildSwarm, docker } from './driver-swarm-support.js';

// engines 23-25
const FIRST = 23;
const [nodeA, nodeB, nodeC] = [`node${FIRST}`, `node${FIRST + 1}`, `node${FIRST + 2}`];

describe('driver-swarm images, volumes, networks and renames across three real engines', () => {
  let testbed: Testbed;
  let swarm: Swarm;
  let cluster: SwarmCluster;
  const scratch = mkdtempSync(join(tmpdir(), 'swarm-driver-images-'));
  const images = () => cluster.capabilities.imageManagement;
  const volumes = () => cluster.capabilities.volumeManagement;
  const networks = () => cluster.capabilities.networkManagement;

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 3 });
    ({ swarm, cluster } = await buildSwarm(`nodes://127.0.0.[${FIRST + 1}:${FIRST + 3}]:2375`));
    await swarm.start();
  });

  afterAll(async () => {
    await swarm?.stop();
    await testbed?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('fans images out: tag on every engine, rmi from every engine', async () => {
    await images().tag('busybox:local', 'fanout', 'v1', false);
    const holders = images()
      .list()
      .filter((image) => image.repoTags.includes('fanout:v1'));
    expect(holders.map((image) => image.node.name).sort()).toEqual([nodeA, nodeB, nodeC]);
    for (const engine of testbed.engines) {
      expect(await docker(`tcp://${engine.addr}`, 'images', '-q', 'fanout:v1')).not.toBe('');
    }
    const removed = await images().remove('fanout:v1', false);
    expect(removed.filter((entry) => entry.Untagged === 'fanout:v1')).toHaveLength(3);
    expect(images().find('fanout:v1')).toBeUndefined();
    for (const engine of testbed.engines) expect(await docker(`tcp://${engine.addr}`, 'images', '-q', 'fanout:v1')).toBe('');
    await expect(images().remove('fanout:v1', false)).rejects.toThrow('No such image: fanout:v1');
  });

  it('loads and imports an archive onto every engine, with progress per node', async () => {
    const archive = join(scratch, 'image.tar');
    const source = `tcp://127.0.0.${FIRST + 1}:2375`;
    await docker(source, 'tag', 'busybox:local', 'loaded:1');
    await docker(source, 'save', '-o', archive, 'loaded:1');
    await docker(source, 'rmi', 'loaded:1');
    const loadProgress: string[] = [];
    await images().load(createReadStream(archive), (node, message) =>
      loadProgress.push(`${node.name}: ${message.stream ?? message.status ?? ''}`),
    );
    expect(
      images()
        .list()
        .filter((image) => image.repoTags.includes('loaded:1'))
        .map((image) => image.node.name)
        .sort(),
    ).toEqual([nodeA, nodeB, nodeC]);
    expect(loadProgress.some((line) => line.startsWith(`${nodeC}: Loaded image: loaded:1`))).toBe(true);

    const rootfs = `${process.env['SWARM_TESTBED_DIR'] ?? '/tmp/swarm-testbed'}/busybox-rootfs.tar`;
    const importProgress = new Set<string>();
    await images().importFrom('-', 'imported', '1', createReadStream(rootfs), (node) => importProgress.add(node.name));
    expect([...importProgress].sort()).toEqual([nodeA, nodeB, nodeC]);
    for (const engine of testbed.engines) expect(await docker(`tcp://${engine.addr}`, 'images', '-q', 'imported:1')).not.toBe('');
    await images().remove('loaded:1', true);
    await images().remove('imported:1', true);
  });

  it('renames a container, refusing a name in use', async () => {
    const first = await cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'] }, 'before-rename');
    const second = await cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'] }, 'taken-name');
    await expect(cluster.capabilities.containerRename.rename(first, 'taken-name')).rejects.toThrow(
      'Conflict: The name taken-name is already assigned.',
    );
    await cluster.capabilities.containerRename.rename(first, 'after-rename');
    expect(cluster.container('after-rename')?.id).toBe(first.id);
    expect(cluster.container('before-rename')).toBeUndefined();
    await cluster.removeContainer(cluster.container('after-rename')!, { force: true });
    await cluster.removeContainer(second, { force: true });
  });

  it('creates volumes on every engine, or on one with node/name', async () => {
    const everywhere = await volumes().create({ Name: 'shared-data' });
    expect(everywhere.name).toBe('shared-data');
    expect(
      volumes()
        .list()
        .filter((volume) => volume.name === 'shared-data'),
    ).toHaveLength(3);
    const single = await volumes().create({ Name: `${nodeC}/only-here` });
    expect(single.node.name).toBe(nodeC);
    expect(volumes().find(`${nodeC}/only-here`)?.name).toBe('only-here');
    expect(volumes().find('only-here')?.node.name).toBe(nodeC);
    await volumes().remove('shared-data', false);
    await volumes().remove(`${nodeC}/only-here`, false);
    expect(
      volumes()
        .list()
        .some((volume) => volume.name === 'shared-data' || volume.name === 'only-here'),
    ).toBe(false);
  });

  it('creates a network on the named node or where the scheduler places it', async () => {
    const network = await networks().create({ Name: `${nodeA}/backend` });
    expect(network.node.name).toBe(nodeA);
    expect(networks().find(`${nodeA}/backend`)?.id).toBe(network.id);
    expect(networks().find(network.id.slice(0, 12))?.id).toBe(network.id);
    await networks().remove(network);
    expect(networks().find(`${nodeA}/backend`)).toBeUndefined();
    const placed = await networks().create({ Name: 'anywhere-net' });
    expect([nodeA, nodeB, nodeC]).toContain(placed.node.name);
    expect(networks().find('anywhere-net')?.id).toBe(placed.id);
    await networks().remove(placed);
  });
});
