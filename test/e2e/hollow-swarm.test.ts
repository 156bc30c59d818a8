import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import { startHollowCluster, type HollowCluster } from '@swarm/core/hollow';
import { EngineClient } from '../bench/hollow/index.js';

// swarm manage in front of 40 hollow engines (slots 1900-1939, 127.0.9.108-147), driven with the
// docker CLI: the driver must treat them as engines.
const run = promisify(execFile);
const COUNT = 40;
const PORT = 24800;
let cluster: HollowCluster;
let manager: Manager;

const docker = async (...args: string[]): Promise<string> =>
  (await run('docker', ['-H', `tcp://127.0.0.1:${PORT}`, ...args])).stdout.trim();

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!accept(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

beforeAll(async () => {
  cluster = await startHollowCluster({
    count: COUNT,
    containersPerEngine: 2,
    delayMs: 1,
    firstSlot: 1900,
    labels: (index) => [`zone=${index % 2 === 0 ? 'a' : 'b'}`],
  });
  manager = await startManager({
    discovery: `nodes://${cluster.addrs}`,
    port: PORT,
    expectNodes: COUNT,
    args: ['--engine-refresh-min-interval', '1s', '--engine-refresh-max-interval', '2s', '--engine-failure-retry', '1'],
  });
});

afterAll(async () => {
  await manager?.stop();
  await cluster?.stop();
});

describe('swarm manage in front of hollow engines', () => {
  it('shows every hollow engine as a healthy node with its containers and labels', async () => {
    const info = await docker('info');
    expect(info).toContain(`Nodes: ${COUNT}`);
    expect(info.match(/└ Status: Healthy/g)).toHaveLength(COUNT);
    expect(info).toContain(`Containers: ${COUNT * 2}`);
    expect(info).toMatch(/hollow1: 127\.0\.9\.109:2375/);
    expect(info).toContain('zone=b');
    expect((await docker('ps', '-aq')).split('\n')).toHaveLength(COUNT * 2);
  });

  it('schedules docker run on a hollow engine that satisfies the constraint, and stops and removes it there', async () => {
    await docker('run', '-d', '--name', 'hs-web', '-e', 'constraint:zone==b', '-p', '8080:80', 'busybox:local', 'sleep', '60');
    const placed = await docker('ps', '--filter', 'name=hs-web', '--format', '{{.Names}} {{.Ports}}');
    const [nodeName = '', ports = ''] = placed.split(' ');
    const engine = cluster.engines.find((candidate) => `${candidate.name}/hs-web` === nodeName);
    expect(engine, placed).toBeDefined();
    expect(engine!.state.identity.labels).toEqual(['zone=b']);
    expect(ports).toBe(`${engine!.host}:8080->80/tcp`);
    expect(engine!.state.container('hs-web').state).toBe('running');

    await docker('stop', 'hs-web');
    expect(engine!.state.container('hs-web').state).toBe('exited');
    await docker('rm', 'hs-web');
    expect(() => engine!.state.container('hs-web')).toThrow(/No such container/);
    expect(await docker('ps', '-a', '--filter', 'name=hs-web', '-q')).toBe('');
  });

  it('learns from the event stream about containers started behind its back', async () => {
    const engine = cluster.engines[5]!;
    const client = new EngineClient(engine.host, engine.port);
    try {
      await client.json('POST', '/v1.41/containers/create?name=hs-direct', { Image: 'busybox:local', Cmd: ['sleep', '60'] });
      await client.call('POST', '/v1.41/containers/hs-direct/start');
    } finally {
      client.close();
    }
    const seen = await eventually(
      () => docker('ps', '--filter', 'name=hs-direct', '--format', '{{.Names}} {{.Status}}'),
      (out) => out !== '',
    );
    expect(seen).toMatch(new RegExp(`^${engine.name}/hs-direct Up`));
    await docker('rm', '-f', 'hs-direct');
  });

  it('marks a hollow engine that goes away as unhealthy', async () => {
    const engine = cluster.engines[COUNT - 1]!;
    await engine.stop();
    const info = await eventually(
      () => docker('info'),
      (out) => /└ Status: Unhealthy/.test(out),
      30_000,
    );
    const section = info.slice(info.indexOf(`${engine.name}: ${engine.addr}`));
    expect(section).toMatch(/^[^\n]*\n\s*└ ID: [^\n]*\n\s*└ Status: Unhealthy/);
  });
});
