import { createSwarm, type Swarm } from '@swarm/core';
import { Tokens, type ClusterEvent, type DeploymentConfig } from '@swarm/plugin-sdk';
import { named } from '../dist/plugins/extension-kinds.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempProject, filtersBody, memoryDriverBody, strategyBody, type TempProject } from './support/temp-project.js';
import { container as globalContainer } from 'tsyringe';

interface MemoryCluster {
  readonly config: DeploymentConfig;
  readonly state: { containers: string[] };
  readonly started: number;
}

let project: TempProject;
let a: Swarm;
let b: Swarm;

beforeAll(async () => {
  project = createTempProject();
  project.addPlugin('swarm-plugin-memory', { register: `${memoryDriverBody()}\n    ${strategyBody('first')}` });
  project.addPlugin('swarm-plugin-gpu', { register: filtersBody('gpu') });
  [a, b] = await Promise.all([
    createSwarm(
      {
        plugins: ['memory', 'gpu'],
        cluster: { driver: 'memory', discovery: 'nodes://127.0.0.1:23001', options: { owner: 'a' } },
        scheduler: { filters: ['gpu'], strategy: 'first' },
      },
      { configDir: project.dir },
    ),
    createSwarm(
      {
        plugins: ['memory'],
        cluster: { driver: 'memory', discovery: '127.0.0.1:23002', options: { owner: 'b' } },
        scheduler: { filters: [], strategy: 'first' },
      },
      { configDir: project.dir },
    ),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  project.remove();
});

describe('two deployments in one process', () => {
  it('have their own containers, clusters and config', () => {
    expect(a.deployment.container).not.toBe(b.deployment.container);
    const clusterA = a.cluster as unknown as MemoryCluster;
    const clusterB = b.cluster as unknown as MemoryCluster;
    expect(clusterA).not.toBe(clusterB);
    expect(a.cluster).toBe(clusterA);
    expect(clusterA.config.cluster.options).toEqual({ owner: 'a' });
    expect(clusterB.config.cluster.options).toEqual({ owner: 'b' });
    clusterA.state.containers.push('web');
    expect(clusterB.state.containers).toEqual([]);
  });

  it('register plugins only where they are configured, never in the root container', () => {
    const gpu = named(Tokens.Filter, 'gpu');
    expect(a.deployment.container.isRegistered(gpu, true)).toBe(true);
    expect(b.deployment.container.isRegistered(gpu, true)).toBe(false);
    expect(globalContainer.isRegistered(gpu, true)).toBe(false);
    expect(globalContainer.isRegistered(Tokens.Cluster, true)).toBe(false);
    expect(a.deployment.available(Tokens.Filter)).toContain('gpu');
    expect(b.deployment.available(Tokens.Filter)).not.toContain('gpu');
  });

  it('share no services', () => {
    for (const token of [Tokens.EventBus, Tokens.DeploymentConfig, Tokens.ClusterOptions, Tokens.StrategyOptions, Tokens.HostConfig]) {
      expect(a.deployment.container.resolve(token)).not.toBe(b.deployment.container.resolve(token));
    }
    expect(a.deployment.container.resolve(Tokens.HostConfig)).toEqual(b.deployment.container.resolve(Tokens.HostConfig));
  });

  it('start, stop and report events separately', async () => {
    const seenA: ClusterEvent[] = [];
    const seenB: ClusterEvent[] = [];
    const lifecycle: string[] = [];
    a.on('event', (event) => seenA.push(event));
    b.on('event', (event) => seenB.push(event));
    a.on('started', (info) => lifecycle.push(`started:${info.addresses.length}`));
    a.on('stopped', () => lifecycle.push('stopped'));
    await a.start();
    expect((a.cluster as unknown as MemoryCluster).started).toBe(1);
    expect((b.cluster as unknown as MemoryCluster).started).toBe(0);
    expect(seenA.map((event) => event.Action)).toEqual(['engine_connect']);
    expect(seenB).toEqual([]);
    await a.stop();
    expect((a.cluster as unknown as MemoryCluster).started).toBe(0);
    expect(lifecycle).toEqual(['started:0', 'stopped']);
  });

  it('refuse to start without a discovery, naming the key', async () => {
    const lonely = await createSwarm(
      { plugins: ['memory'], cluster: { driver: 'memory' }, scheduler: { filters: [], strategy: 'first' } },
      { configDir: project.dir },
    );
    await expect(lonely.start()).rejects.toThrow('cluster.discovery: discovery required to manage a cluster');
  });
});
