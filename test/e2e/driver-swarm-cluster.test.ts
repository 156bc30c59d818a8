import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterEvent, type Container } from '@swarm/plugin-sdk';
import { SwarmLabels } from '@swarm/plugin-sdk/helpers';
import type { EngineNode } from '../../plugins/driver-swarm/src/engine-node.js';
import type { SwarmCluster } from '../../plugins/driver-swarm/src/swarm-cluster.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Swarm } from '@swarm/core';
import { buildSwarm, collectEvents, docker, eventually, nodeRows } from './driver-swarm-support.js';

// engines 10-12
const FIRST = 10;
const MiB = 1024 * 1024;

describe('driver-swarm against three real engines', () => {
  let testbed: Testbed;
  let swarm: Swarm;
  let cluster: SwarmCluster;
  let recorded: { events: ClusterEvent[]; stop: () => void };
  let startedMs = 0;

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 3, labels: ['zone=a'] });
    ({ swarm, cluster } = await buildSwarm(`nodes://127.0.0.[${FIRST + 1}:${FIRST + 3}]:2375`));
    recorded = collectEvents((listener) => cluster.subscribe(listener));
    const started = Date.now();
    await swarm.start();
    startedMs = Date.now() - started;
  });

  afterAll(async () => {
    recorded?.stop();
    await swarm?.stop();
    await testbed?.stop();
  });

  it('finds every engine of a range and reports it Healthy with engine_connect', () => {
    expect(
      cluster
        .nodes()
        .map((node) => node.name)
        .sort(),
    ).toEqual(['node10', 'node11', 'node12']);
    expect(cluster.nodes().every((node) => node.isHealthy())).toBe(true);
    const connects = recorded.events.filter((event) => event.Action === 'engine_connect');
    expect(connects.map((event) => event.node?.Name).sort()).toEqual(['node10', 'node11', 'node12']);
    expect(connects[0]).toMatchObject({ Type: 'swarm', status: 'engine_connect', from: 'swarm' });
    expect(startedMs).toBeLessThan(10_000);
    console.log(`[driver-swarm] 3 running engines discovered and Healthy in ${startedMs} ms`);
  });

  it('answers info with Swarm classic rows', () => {
    const rows = cluster.info().systemStatus;
    expect(rows.slice(0, 4)).toEqual([
      ['Role', 'primary'],
      ['Strategy', 'spread'],
      ['Filters', 'health, constraint, affinity'],
      ['Nodes', '3'],
    ]);
    expect(rows[4]).toEqual([' node10', `127.0.0.${FIRST + 1}:2375`]);
    const node = nodeRows(rows, 'node11');
    expect([...node.keys()]).toEqual([
      'ID',
      'Status',
      'Containers',
      'Reserved CPUs',
      'Reserved Memory',
      'Labels',
      'Error',
      'UpdatedAt',
      'ServerVersion',
    ]);
    expect(node.get('Status')).toBe('Healthy');
    expect(node.get('Error')).toBe('(none)');
    expect(node.get('Labels')).toMatch(/^kernelversion=.*, operatingsystem=.*, ostype=linux, storagedriver=vfs, zone=a$/);
    expect(node.get('Reserved CPUs')).toMatch(/^0 \/ \d+$/);
    expect(node.get('Reserved Memory')).toMatch(/^0 B \/ [\d.]+ GiB$/);
    expect(node.get('UpdatedAt')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(node.get('ServerVersion')).toMatch(/^\d+\.\d+/);
    expect(node.get('ID')).toMatch(/^[A-Z0-9]{4}(:[A-Z0-9]{4}){11}$/);
  });

  let web: Container;

  it('creates with a swarm id, reserves CPU and memory, and converts CPUs to real shares', async () => {
    web = await cluster.createContainer(
      {
        Image: 'busybox:local',
        Cmd: ['sleep', '300'],
        Env: ['constraint:node==node11', 'A=1'],
        HostConfig: { CpuShares: 1, Memory: 64 * MiB },
      },
      'web',
    );
    expect(web.node.name).toBe('node11');
    expect(web.labels[SwarmLabels.id]).toMatch(/^[0-9a-f]{64}$/);
    expect(web.labels[SwarmLabels.constraints]).toBe('["node==node11"]');
    expect(web.config.Env).toEqual(['A=1']);
    const node = web.node as EngineNode;
    expect(node.usedCpus()).toBe(1);
    expect(node.usedMemory()).toBe(64 * MiB);
    const shares = await docker(`tcp://${node.addr}`, 'inspect', '-f', '{{.HostConfig.CpuShares}}', web.id);
    expect(Number(shares)).toBe(Math.ceil(1024 / node.cpus));
    const rows = nodeRows(cluster.info().systemStatus, 'node11');
    expect(rows.get('Reserved CPUs')).toMatch(/^1 \/ \d+$/);
    expect(rows.get('Reserved Memory')).toMatch(/^64 MiB \//);
    expect(rows.get('Containers')).toBe('1 (0 Running, 0 Paused, 1 Stopped)');
  });

  it('starts a container and follows its state from the event stream', async () => {
    await cluster.startContainer(web);
    expect(cluster.container('web')?.state).toBe('running');
    // a change made behind swarm's back reaches it through the engine's events
    await docker(`tcp://${web.node.addr}`, 'pause', web.id);
    await eventually('paused state', () => cluster.container('web')?.state === 'paused');
    await docker(`tcp://${web.node.addr}`, 'unpause', web.id);
    await eventually('running state', () => cluster.container('web')?.state === 'running');
  });

  it('refuses a second container with the same name, as classic says it', async () => {
    await expect(cluster.createContainer({ Image: 'busybox:local' }, 'web')).rejects.toThrow(
      'Conflict: The name web is already assigned. You have to delete (or rename) that container to be able to assign web to a container again.',
    );
  });

  it('looks containers up by id, short id, name, /name, node/name, swarm id and unique prefix', async () => {
    const swarmId = web.labels[SwarmLabels.id]!;
    for (const reference of [web.id, web.id.slice(0, 12), 'web', '/web', 'node11/web', swarmId, web.id.slice(0, 5), swarmId.slice(0, 20)]) {
      expect(cluster.container(reference)?.id, reference).toBe(web.id);
    }
    expect(cluster.container('node10/web')).toBeUndefined();
    expect(cluster.container('nothing-like-this')).toBeUndefined();
    // two containers share an id prefix of length 0..1 with high probability: an ambiguous prefix finds nothing
    const other = await cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'] }, 'other');
    const common = [...web.id].findIndex((char, index) => other.id[index] !== char);
    expect(cluster.container(web.id.slice(0, common))).toBeUndefined();
    await cluster.removeContainer(other, { force: true });
  });

  it('keeps a pending reservation while parallel creates are in flight', async () => {
    const node10 = cluster.nodes().find((node) => node.name === 'node10')!;
    const creates = [1, 2, 3].map((n) =>
      cluster.createContainer(
        { Image: 'busybox:local', Cmd: ['true'], Env: ['constraint:node==node10'], HostConfig: { Memory: 32 * MiB } },
        `batch${n}`,
      ),
    );
    expect(node10.usedMemory()).toBe(96 * MiB);
    expect(node10.containers().filter((container) => container.state === 'pending')).toHaveLength(3);
    const created = await Promise.all(creates);
    expect(node10.containers().filter((container) => container.state === 'pending')).toHaveLength(0);
    expect(node10.usedMemory()).toBe(96 * MiB);
    for (const container of created) await cluster.removeContainer(container, { force: true });
    expect(node10.usedMemory()).toBe(0);
    expect(cluster.container('batch1')).toBeUndefined();
  });

  it('retries a create whose image is missing on the chosen node with an image affinity', async () => {
    await docker(`tcp://127.0.0.${FIRST + 3}:2375`, 'tag', 'busybox:local', 'only-on-node12:1');
    await eventually('image known', () => cluster.capabilities.images.find('only-on-node12:1'));
    const created = [];
    for (const n of [1, 2, 3]) {
      created.push(
        await cluster.createContainer({ Image: 'only-on-node12:1', Cmd: ['true'], HostConfig: { Memory: 16 * MiB } }, `affine${n}`),
      );
    }
    expect(created.map((container) => container.node.name)).toEqual(['node12', 'node12', 'node12']);
    // the retry-only affinity is not stored on the container
    expect(created[0]!.labels[SwarmLabels.affinities]).toBeUndefined();
    for (const container of created) await cluster.removeContainer(container, { force: true });
    // missing everywhere: the engine's 404 comes back, so the docker CLI can pull and retry
    await expect(cluster.createContainer({ Image: 'missing-everywhere:1' }, undefined)).rejects.toMatchObject({ httpStatus: 404 });
  });

  it('releases the reservation when a container is removed', async () => {
    const node = web.node;
    await cluster.removeContainer(cluster.container('web')!, { force: true });
    expect(node.usedCpus()).toBe(0);
    expect(node.usedMemory()).toBe(0);
    expect(cluster.container('web')).toBeUndefined();
  });

  it('streams engine events with the node they happened on', async () => {
    const seen = collectEvents((listener) => cluster.subscribe(listener));
    const id = await docker(`tcp://127.0.0.${FIRST + 3}:2375`, 'create', '--name', 'outside', 'busybox:local', 'true');
    const event = await eventually('create event', () =>
      seen.events.find((candidate) => candidate.Action === 'create' && candidate.id === id),
    );
    expect(event.node).toEqual({
      Name: 'node12',
      Id: cluster.container(id)!.node.id,
      Addr: `127.0.0.${FIRST + 3}:2375`,
      Ip: `127.0.0.${FIRST + 3}`,
    });
    expect(event['Actor']).toMatchObject({
      ID: id,
      Attributes: { name: 'outside', 'node.name': 'node12', 'node.addr': `127.0.0.${FIRST + 3}:2375` },
    });
    expect(cluster.container('node12/outside')?.id).toBe(id);
    await docker(`tcp://127.0.0.${FIRST + 3}:2375`, 'rm', id);
    await eventually('container gone after destroy', () => cluster.container(id) === undefined);
    seen.stop();
  });
});
