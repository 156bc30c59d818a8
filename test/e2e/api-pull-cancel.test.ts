import { execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerOk, startApiCluster, startRegistry, tempDir, type ApiCluster, type Registry } from './api-support.js';

// Engines 100-101 behind `swarm manage` on 25000; a local registry on 25001 and, in front of it on
// 25002, a proxy that slows what the registry sends so a pull through it lasts long enough to cancel.
const MANAGER_PORT = 25000;
const REGISTRY_PORT = 25001;
const SLOW_PORT = 25002;
const LAYER_MB = 16;
/** Bytes a second per connection while throttled: the layer would take ~30 s to reach each engine. */
const SLOW_RATE = 512 * 1024;
/** A connection that carried this much is a layer download (manifests and configs are a few KB). */
const LAYER_CONNECTION_BYTES = 512 * 1024;

const run = promisify(execFile);

interface ProxiedConnection {
  bytes: number;
  open: boolean;
}

/** A TCP proxy to the registry that counts, and can throttle, the bytes sent to each engine. */
class SlowRegistryProxy {
  readonly connections: ProxiedConnection[] = [];
  rate = SLOW_RATE;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((client) => this.relay(client));

  listen(port: number): Promise<void> {
    return new Promise((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  layerConnections(): ProxiedConnection[] {
    return this.connections.filter((connection) => connection.bytes >= LAYER_CONNECTION_BYTES);
  }

  totalBytes(): number {
    return this.connections.reduce((sum, connection) => sum + connection.bytes, 0);
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    const upstream = connect(REGISTRY_PORT, '127.0.0.1');
    const connection: ProxiedConnection = { bytes: 0, open: true };
    this.connections.push(connection);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        connection.open = false;
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      connection.bytes += chunk.length;
      const flushed = client.write(chunk);
      if (this.rate === Infinity && flushed) return;
      upstream.pause();
      // listen for 'drain' now: it may come before the throttling delay is over
      const drained = flushed ? Promise.resolve() : new Promise((resolve) => client.once('drain', resolve));
      const delayed = new Promise((resolve) => setTimeout(resolve, this.rate === Infinity ? 0 : (chunk.length / this.rate) * 1000));
      void Promise.all([drained, delayed]).then(() => upstream.resume());
    });
  }
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a pull through swarm stops on every engine when the client leaves', () => {
  let cluster: ApiCluster;
  let registry: Registry;
  let workdir: { path: string; remove(): void };
  const proxy = new SlowRegistryProxy();
  const slowRef = `127.0.0.1:${SLOW_PORT}/big:1`;

  beforeAll(async () => {
    [cluster, registry, workdir] = await Promise.all([
      startApiCluster(100, 2, MANAGER_PORT),
      startRegistry(REGISTRY_PORT),
      tempDir('swarm-e2e-pull-cancel-'),
    ]);
    await proxy.listen(SLOW_PORT);
    // an image with one layer of random (incompressible) bytes, pushed from one engine, then removed from it
    const rootfs = join(workdir.path, 'rootfs');
    mkdirSync(rootfs);
    await run('sh', ['-c', `head -c ${LAYER_MB}M /dev/urandom > ${rootfs}/blob`]);
    await run('tar', ['-C', rootfs, '-cf', join(workdir.path, 'rootfs.tar'), '.']);
    const engine = `tcp://${cluster.testbed.engines[0]!.addr}`;
    const pushedRef = `${registry.addr}/big:1`;
    await dockerOk(engine, ['import', join(workdir.path, 'rootfs.tar'), pushedRef]);
    await dockerOk(engine, ['push', pushedRef]);
    await dockerOk(engine, ['rmi', pushedRef]);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await proxy.close();
    await registry?.stop();
    workdir?.remove();
  });

  const imagesOnEngines = async (): Promise<string[]> => {
    const rows = await Promise.all(
      cluster.testbed.engines.map((engine) => dockerOk(`tcp://${engine.addr}`, ['images', '--format', '{{.Repository}}:{{.Tag}}'])),
    );
    return rows.flatMap((out) => out.trim().split('\n')).filter(Boolean);
  };

  it('docker pull interrupted with Ctrl-C stops the layer downloads of both engines', async () => {
    const env = { ...process.env };
    delete env['DOCKER_API_VERSION'];
    const pull = spawn('docker', ['-H', cluster.host, 'pull', slowRef], { stdio: 'ignore', env });
    const exited = new Promise((resolve) => pull.once('exit', resolve));
    // both engines are downloading the layer, and still are a second later
    await until(
      () => proxy.layerConnections().filter((connection) => connection.open).length >= 2,
      60_000,
      'both engines downloading the layer',
    );
    const before = proxy.totalBytes();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(proxy.totalBytes()).toBeGreaterThan(before);
    expect(proxy.layerConnections().filter((connection) => connection.open).length).toBeGreaterThanOrEqual(2);

    pull.kill('SIGINT');
    await exited;
    // the engines close their downloads long before the ~30 s the throttled layer would take
    await until(() => proxy.layerConnections().every((connection) => !connection.open), 10_000, 'the engines to stop downloading');
    const stopped = proxy.totalBytes();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(proxy.totalBytes()).toBe(stopped);
    expect(await imagesOnEngines()).not.toContain(slowRef);
  }, 120_000);

  it('keeps serving, and the same pull completes on every engine when the client stays', async () => {
    proxy.rate = Infinity;
    const pulled = await docker(cluster.host, ['pull', slowRef]);
    expect(pulled.stderr).toBe('');
    for (const node of ['node100', 'node101']) expect(pulled.stdout).toContain(`${node}: `);
    expect((await imagesOnEngines()).filter((ref) => ref === slowRef)).toHaveLength(2);
  }, 120_000);
});
