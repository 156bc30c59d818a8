import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, ClusterCapabilities, Container, Scheduler } from '@swarm/plugin-sdk';
import { fakeNode } from '@swarm/plugin-sdk/testing';
import { startApiServer, type ApiServer } from '../dist/api/index.js';
import { hostPort, http } from './api-test-client.js';

const node = fakeNode({ name: 'n1', containers: [{ name: 'web' }], images: [{ repoTags: ['busybox:local'] }] });

/** A driver with the core only (as a Kubernetes-style driver without Docker engines might be). */
function coreOnlyCluster(capabilities?: ClusterCapabilities): Cluster {
  return {
    driverName: 'bare',
    start: async () => undefined,
    stop: async () => undefined,
    nodes: () => [node],
    createContainer: async () => node.containers()[0]!,
    startContainer: async () => undefined,
    removeContainer: async () => undefined,
    containers: () => node.containers(),
    container: (name: string): Container | undefined => node.container(name),
    explain: () => ({ strategy: 'spread', filters: [], softDropped: false, nodes: [], summary: '' }),
    info: () => ({
      systemStatus: [],
      ncpu: 0,
      memTotal: 0,
      containers: 1,
      containersRunning: 1,
      containersPaused: 0,
      containersStopped: 0,
      images: 0,
      driver: 'bare',
    }),
    subscribe: () => () => undefined,
    ...(capabilities ? { capabilities } : {}),
  };
}

describe('capabilities a driver leaves out', () => {
  let server: ApiServer;
  let base: { host: string; port: number };

  beforeAll(async () => {
    server = await startApiServer({
      cluster: coreOnlyCluster(),
      scheduler: {} as Scheduler,
      settings: { hosts: ['tcp://127.0.0.1:0'], cors: false },
      logger: (await import('../dist/logging/silent-logger.js')).silentLogger,
      version: '0.1.0-test',
    });
    base = hostPort(server.addresses[0]!);
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['GET', '/images/json', 'image listing'],
    ['GET', '/v1.41/images/busybox:local/json', 'image lookup'],
    ['POST', '/images/create?fromImage=busybox', 'image pull'],
    ['POST', '/images/create?fromSrc=-', 'image import'],
    ['POST', '/images/load', 'image load'],
    ['POST', '/images/busybox:local/tag?repo=x', 'image tag'],
    ['DELETE', '/images/busybox:local', 'image removal'],
    ['GET', '/volumes', 'volume listing'],
    ['POST', '/volumes/create', 'volume create'],
    ['DELETE', '/volumes/v1', 'volume removal'],
    ['GET', '/networks', 'network listing'],
    ['POST', '/networks/create', 'network create'],
    ['DELETE', '/networks/n1', 'network removal'],
    ['POST', '/build?t=x', 'image build'],
    ['GET', '/plugins', 'plugin management'],
    ['POST', '/containers/web/rename?name=other', 'rename'],
  ])("%s %s answers Docker's 501 naming the driver", async (method, path, operation) => {
    const answer = await http(base, method, path, method === 'POST' ? '{"Name":"x"}' : undefined, { 'content-type': 'application/json' });
    expect(answer.status).toBe(501);
    expect(answer.json()).toEqual({ message: `${operation} is not supported with bare` });
  });

  it('still serves the core: containers, info, ping', async () => {
    expect((await http(base, 'GET', '/containers/json')).status).toBe(200);
    expect((await http(base, 'GET', '/info')).status).toBe(200);
    expect((await http(base, 'GET', '/_ping')).text).toBe('OK');
  });
});

describe('a driver that can pull but keeps no image store clients may change (as the Kubernetes driver)', () => {
  let server: ApiServer;
  let base: { host: string; port: number };
  const pulled: string[] = [];

  beforeAll(async () => {
    const pullsOnly = coreOnlyCluster({
      imagePull: {
        pull: async (reference, _auth, onProgress) => {
          pulled.push(reference);
          onProgress(node, { status: `${reference}: the node pulls it when a container needs it` });
        },
      },
    });
    server = await startApiServer({
      cluster: pullsOnly,
      scheduler: {} as Scheduler,
      settings: { hosts: ['tcp://127.0.0.1:0'], cors: false },
      logger: (await import('../dist/logging/silent-logger.js')).silentLogger,
      version: '0.1.0-test',
    });
    base = hostPort(server.addresses[0]!);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('pulls', async () => {
    const answer = await http(base, 'POST', '/images/create?fromImage=busybox&tag=1.36');
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('busybox:1.36: the node pulls it when a container needs it');
    expect(pulled).toEqual(['busybox:1.36']);
  });

  it.each([
    ['POST', '/images/create?fromSrc=-', 'image import'],
    ['POST', '/images/load', 'image load'],
    ['POST', '/images/busybox:local/tag?repo=x', 'image tag'],
    ['DELETE', '/images/busybox:local', 'image removal'],
  ])("%s %s answers Docker's 501 naming the driver", async (method, path, operation) => {
    const answer = await http(base, method, path, method === 'POST' ? '{}' : undefined, { 'content-type': 'application/json' });
    expect(answer.status).toBe(501);
    expect(answer.json()).toEqual({ message: `${operation} is not supported with bare` });
  });
});
