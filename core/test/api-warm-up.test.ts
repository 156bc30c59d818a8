import { afterEach, describe, expect, it } from 'vitest';
import type { Cluster, ClusterEvent, Scheduler } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { fakeNode } from '@swarm/plugin-sdk/testing';
import { startApiServer, type ApiServer } from '../dist/api/index.js';
import { silentLogger } from '../dist/logging/silent-logger.js';
import { hostPort, http } from './api-test-client.js';

const nodes = [fakeNode({ name: 'n1' }), fakeNode({ name: 'n2' })];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A driver whose explanations are recorded; `emit` sends a cluster event to the API's subscribers. */
function recordingCluster(explain: (config: ContainerConfig) => void) {
  const listeners = new Set<(event: ClusterEvent) => void>();
  const cluster: Cluster = {
    driverName: 'recording',
    start: async () => undefined,
    stop: async () => undefined,
    nodes: () => nodes,
    createContainer: async () => {
      throw new Error('unused');
    },
    startContainer: async () => undefined,
    removeContainer: async () => undefined,
    containers: () => [],
    container: () => undefined,
    explain: (config) => {
      explain(config);
      return { strategy: 'spread', filters: [], softDropped: false, nodes: [], summary: '' };
    },
    info: () => ({
      systemStatus: [],
      ncpu: 0,
      memTotal: 0,
      containers: 0,
      containersRunning: 0,
      containersPaused: 0,
      containersStopped: 0,
      images: 0,
      driver: 'recording',
    }),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const emit = (Action: string) => {
    for (const listener of listeners) listener({ Type: Action.startsWith('engine_') ? 'swarm' : 'container', Action, status: Action });
  };
  return { cluster, emit, listeners };
}

describe('warming up placements while the manager is quiet', () => {
  let server: ApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = (cluster: Cluster) =>
    startApiServer({
      cluster,
      scheduler: {} as Scheduler,
      settings: { hosts: ['tcp://127.0.0.1:0'], cors: false },
      logger: silentLogger,
      version: '0.1.0-test',
    });

  it('makes one dry placement once the nodes held still, and another after engines came or went', async () => {
    const placed: number[] = [];
    const started = Date.now();
    const { cluster, emit, listeners } = recordingCluster((config) => {
      expect(config.Image).toBeTruthy();
      placed.push(Date.now() - started);
    });
    server = await start(cluster);
    await sleep(1_800);
    expect(placed).toHaveLength(1);
    expect(placed[0]).toBeGreaterThanOrEqual(950);

    // engines connecting one after another put it off until they stop; container events do not count
    for (let step = 0; step < 4; step++) {
      emit('engine_connect');
      emit('start');
      await sleep(200);
    }
    expect(placed).toHaveLength(1);
    await sleep(1_500);
    expect(placed).toHaveLength(2);
    emit('start');
    emit('die');
    await sleep(1_500);
    expect(placed).toHaveLength(2);

    await server.close();
    server = undefined;
    expect(listeners.size).toBe(0);
  });

  it('keeps serving when the dry placement fails', async () => {
    let tried = 0;
    const { cluster } = recordingCluster(() => {
      tried++;
      throw new Error('a driver that cannot explain');
    });
    server = await start(cluster);
    await sleep(1_800);
    expect(tried).toBe(1);
    expect((await http(hostPort(server.addresses[0]!), 'GET', '/_ping')).text).toBe('OK');
  });
});
