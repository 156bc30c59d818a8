import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarm, type Swarm } from '@swarm/core';
import type { SwarmCluster } from '../../plugins/driver-swarm/src/swarm-cluster.js';
import type { Container } from '@swarm/plugin-sdk';
import { EngineClient } from '@swarm/plugin-sdk/helpers';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { relaySockets } from '../harness/tcp-relay.js';
import { eventually } from './driver-swarm-support.js';

// Engine 102, reached through a connection-counting TCP proxy on 127.0.0.1:25010.
const ENGINE = 102;
const PROXY_PORT = 25010;

/** Counts the connections the manager opens to the engine and the bytes it sends on them. */
class CountingProxy {
  dialled = 0;
  bytesUp = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((client) => {
    this.dialled++;
    client.on('data', (chunk: Buffer) => (this.bytesUp += chunk.length));
    relaySockets(client, connect(2375, `127.0.0.${ENGINE + 1}`), this.sockets);
  });

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(PROXY_PORT, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('driver-swarm keeps a few connections per engine and reuses them', () => {
  let testbed: Testbed;
  let swarm: Swarm;
  let cluster: SwarmCluster;
  const proxy = new CountingProxy();

  beforeAll(async () => {
    testbed = await startTestbed({ first: ENGINE, count: 1 });
    await proxy.listen();
    swarm = await createSwarm({
      cluster: {
        driver: 'swarm',
        discovery: `nodes://127.0.0.1:${PROXY_PORT}`,
        options: {},
        heartbeat: 1,
        // refreshes further apart than Node's default 5 s idle close: only a kept-alive agent reuses across them
        engineRefreshMinInterval: 6,
        engineRefreshMaxInterval: 7,
        engineFailureRetry: 2,
      },
      scheduler: { filters: ['health'], strategy: 'spread' },
    });
    if (swarm.cluster.driverName !== 'swarm') throw new Error('expected the swarm driver');
    cluster = swarm.cluster as SwarmCluster;
    await swarm.start();
    await eventually('the engine Healthy', () => cluster.nodes()[0]?.status() === 'healthy');
  }, 60_000);

  afterAll(async () => {
    await swarm?.stop();
    await proxy.close();
    await testbed?.stop();
  });

  it('a burst of 24 parallel creates and removes opens at most 8 more connections', async () => {
    const before = proxy.dialled;
    const created: Container[] = await Promise.all(
      Array.from({ length: 24 }, (_, index) => cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'] }, `burst-${index}`)),
    );
    await Promise.all(created.map((container) => cluster.removeContainer(container, { force: true })));
    expect(created).toHaveLength(24);
    expect(proxy.dialled - before).toBeLessThanOrEqual(8);
  }, 60_000);

  it('refreshes 6-7 s apart go over the connections already open', async () => {
    const dialled = proxy.dialled;
    const sent = proxy.bytesUp;
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    // at least two refreshes (list containers, images, volumes, networks) went to the engine...
    expect(proxy.bytesUp - sent).toBeGreaterThan(2 * 4 * 60);
    // ...on no new connection but, at most, the liveness checks' own one, kept open between checks
    expect(proxy.dialled - dialled).toBeLessThanOrEqual(1);
    expect(cluster.nodes()[0]?.status()).toBe('healthy');
  }, 30_000);

  it('dockerd answers inspects pipelined on one connection exactly as one at a time (how an engine load reads its containers)', async () => {
    const created: Container[] = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'], Labels: { n: String(index) } }, `piped-${index}`),
      ),
    );
    const client = new EngineClient({ protocol: 'http', host: '127.0.0.1', port: PROXY_PORT });
    try {
      const paths = [...created.map((container) => container.id), 'piped-missing'].map((id) => ({ path: `/containers/${id}/json` }));
      const dialled = proxy.dialled;
      const piped = await client.readEach<{ Id: string }>(paths);
      expect(proxy.dialled - dialled).toBe(1);
      const single = await Promise.allSettled(paths.map((path) => client.json<{ Id: string }>(path)));
      expect(piped.slice(0, 5)).toEqual(single.slice(0, 5));
      expect(piped.slice(0, 5).map((result) => result.status === 'fulfilled' && result.value.Id)).toEqual(
        created.map((container) => container.id),
      );
      for (const missing of [piped[5], single[5]]) {
        expect(missing).toMatchObject({ status: 'rejected', reason: { httpStatus: 404, message: 'No such container: piped-missing' } });
      }
    } finally {
      client.close();
      await Promise.all(created.map((container) => cluster.removeContainer(container, { force: true })));
    }
  }, 60_000);

  it("ignores the shell's own DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH (here: files that are not certificates)", async () => {
    const certs = mkdtempSync(join(tmpdir(), 'swarm-e2e-client-env-'));
    for (const file of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(certs, file), 'not a certificate\n');
    const saved = { host: process.env['DOCKER_HOST'], verify: process.env['DOCKER_TLS_VERIFY'], certs: process.env['DOCKER_CERT_PATH'] };
    Object.assign(process.env, { DOCKER_HOST: 'tcp://127.0.0.1:1', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs });
    let other: Swarm | undefined;
    try {
      other = await createSwarm({
        cluster: {
          driver: 'swarm',
          discovery: `nodes://127.0.0.${ENGINE + 1}:2375`,
          options: {},
          heartbeat: 1,
          engineRefreshMinInterval: 1,
          engineRefreshMaxInterval: 2,
          engineFailureRetry: 2,
        },
        scheduler: { filters: ['health'], strategy: 'spread' },
      });
      await other.start();
      const node = await eventually('the engine Healthy despite the client environment', () =>
        other!.cluster.nodes().find((candidate) => candidate.status() === 'healthy'),
      );
      expect(node.name).toBe(`node${ENGINE}`);
    } finally {
      await other?.stop();
      for (const [name, value] of [
        ['DOCKER_HOST', saved.host],
        ['DOCKER_TLS_VERIFY', saved.verify],
        ['DOCKER_CERT_PATH', saved.certs],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(certs, { recursive: true, force: true });
    }
  }, 30_000);
});
