import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import { docker, dockerOk, execFileAsync, startApiCluster, startRegistry, tempDir, type ApiCluster, type Registry } from './api-support.js';

// Engines 111-112 behind `swarm manage --cors` on port 25100, a local registry on 25101, and a
// second manager on 25103 whose only engine (127.0.0.1:25102) never answers.
// Indexes 111-115 and ports 25100-25149 belong to this file (the API bench shares engine 112).
const MANAGER_PORT = 25100;
const REGISTRY_PORT = 25101;
const DEAD_ENGINE = '127.0.0.1:25102';
const LONELY_PORT = 25103;
const ENGINE = 'tcp://127.0.0.112:2375';

let cluster: ApiCluster;
let registry: Registry;
let workdir: { path: string; remove(): void };
let host: string;
let base: string;

beforeAll(async () => {
  [cluster, registry, workdir] = await Promise.all([
    startApiCluster(111, 2, MANAGER_PORT, ['--cors']),
    startRegistry(REGISTRY_PORT),
    tempDir('swarm-e2e-endpoints-'),
  ]);
  host = cluster.host;
  base = `http://127.0.0.1:${MANAGER_PORT}`;
});

afterAll(async () => {
  await cluster?.stop();
  await registry?.stop();
  workdir?.remove();
});

describe('docker logs through the framed pipe', () => {
  it("gives the engine's bytes, follows, and keeps CORS headers", async () => {
    const id = (
      await dockerOk(host, ['run', '-d', '--name', 'chatty', 'busybox:local', 'sh', '-c', 'echo start >&2; sleep 1; seq 1 200000'])
    ).trim();
    await dockerOk(host, ['wait', id]);
    const [front, direct] = await Promise.all([
      execFileAsync('docker', ['-H', host, 'logs', 'chatty'], { maxBuffer: 64 * 1024 * 1024 }),
      execFileAsync('docker', ['-H', ENGINE, 'logs', id], { maxBuffer: 64 * 1024 * 1024 }),
    ]);
    expect(front.stdout.length).toBeGreaterThan(1_000_000);
    expect(front.stdout).toBe(direct.stdout);
    expect(front.stderr).toBe('start\n');
    const tail = await dockerOk(host, ['logs', '--tail', '2', '-f', 'chatty']);
    expect(tail).toBe('199999\n200000\n');
    const answer = await fetch(`${base}/v1.41/containers/chatty/logs?stdout=1&stderr=1&tail=2`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('connection')).toBe('close');
    expect(Buffer.from(await answer.arrayBuffer()).toString()).toMatch(/199999\n[^]*200000\n$/);
    const missing = await fetch(`${base}/containers/nope/logs?stdout=1`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: 'No such container: nope' });
  });
});

describe('docker build without BuildKit settings', () => {
  it('builds with the CLI defaults (no buildx: the classic builder), as against the engine', async () => {
    const context = join(workdir.path, 'build');
    mkdirSync(context);
    writeFileSync(join(context, 'Dockerfile'), 'FROM busybox:local\nRUN echo built > /marker\n');
    // An empty DOCKER_BUILDKIT is "not set" for the docker CLI (it only reads non-empty values).
    const defaults = { DOCKER_BUILDKIT: '' };
    const built = await docker(host, ['build', '-t', 'defaults:1', context], { env: defaults });
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(/Successfully tagged defaults:1/);
    expect((await dockerOk(host, ['run', '--rm', 'defaults:1', 'cat', '/marker'])).trim()).toBe('built');
    // BuildKit forced on: the CLI needs buildx, through swarm exactly as against the engine.
    const [front, direct] = await Promise.all([
      docker(host, ['build', context], { env: { DOCKER_BUILDKIT: '1' } }),
      docker(ENGINE, ['build', context], { env: { DOCKER_BUILDKIT: '1' } }),
    ]);
    expect(front.code).not.toBe(0);
    expect(front.code).toBe(direct.code);
    expect(front.stderr).toBe(direct.stderr);
  });

  it('answers BuildKit session and gRPC requests that do not switch protocols with a Docker-format 400', async () => {
    // BuildKit through the manager itself: test/e2e/buildkit.test.ts
    for (const path of ['/grpc', '/v1.41/session']) {
      const answer = await fetch(`${base}${path}`, { method: 'POST', headers: { 'X-Docker-Expose-Session-Uuid': 'abc' } });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { message: string }).message).toMatch(/Upgrade: h2c/);
    }
    expect((await fetch(`${base}/_ping`)).status).toBe(200);
  });
});

describe('/distribution', () => {
  it('answers the registry descriptor as an engine does, errors included', async () => {
    const image = `${registry.addr}/dist:1`;
    await dockerOk(host, ['tag', 'busybox:local', image]);
    const pushed = await dockerOk(host, ['push', image]);
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(pushed)?.[1];
    expect(digest).toBeDefined();
    const path = `/v1.41/distribution/${image}/json`;
    const [front, direct] = await Promise.all([fetch(`${base}${path}`), fetch(`http://127.0.0.112:2375${path}`)]);
    expect(front.status).toBe(200);
    const answer = (await front.json()) as { Descriptor: { digest: string }; Platforms: Array<{ os: string }> };
    expect(answer.Descriptor.digest).toBe(digest);
    expect(answer.Platforms[0]?.os).toBe('linux');
    expect(answer).toEqual(await direct.json());

    const unknown = `/distribution/${registry.addr}/nothing-here:1/json`;
    const [missing, missingDirect] = await Promise.all([fetch(`${base}${unknown}`), fetch(`http://127.0.0.112:2375${unknown}`)]);
    expect(missing.status).toBe(missingDirect.status);
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(await missing.json()).toEqual(await missingDirect.json());
    expect((await fetch(`${base}/distribution/${image}/other`)).status).toBe(404);
  });
});

describe('plugins', () => {
  const plugin = () => `${registry.addr}/e2e-plugin:1`;

  beforeAll(async () => {
    // A plugin made on one engine directly and pushed to the local registry (setup, not tested):
    // busybox's filesystem and a volume-driver config that is never enabled.
    const dir = join(workdir.path, 'plugin');
    mkdirSync(join(dir, 'rootfs'), { recursive: true });
    const container = (await dockerOk(ENGINE, ['create', 'busybox:local', 'true'])).trim();
    await execFileAsync('sh', ['-c', `docker -H ${ENGINE} export ${container} | tar -x -C ${join(dir, 'rootfs')}`]);
    await dockerOk(ENGINE, ['rm', container]);
    const config = {
      description: 'swarm e2e plugin',
      documentation: 'https://example.invalid',
      entrypoint: ['/bin/sleep', '3600'],
      interface: { types: ['docker.volumedriver/1.0'], socket: 'e2e.sock' },
      network: { type: 'host' },
      env: [{ name: 'DEBUG', settable: ['value'], value: '0' }],
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    await dockerOk(ENGINE, ['plugin', 'create', plugin(), dir]);
    await dockerOk(ENGINE, ['plugin', 'push', plugin()]);
    await dockerOk(ENGINE, ['plugin', 'rm', plugin()]);
  });

  it('installs on every node and lists each copy as node/name', async () => {
    const installed = await docker(host, ['plugin', 'install', '--grant-all-permissions', '--disable', plugin()]);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toMatch(/node111: .*Pulling from/);
    expect(installed.stdout).toMatch(/node112: .*Pulling from/);
    const listed = (await dockerOk(host, ['plugin', 'ls', '--format', '{{.Name}} {{.Enabled}}'])).trim().split('\n').sort();
    expect(listed).toEqual([`node111/${plugin()} false`, `node112/${plugin()} false`]);
    const inspected = await dockerOk(host, [
      'plugin',
      'inspect',
      '--format',
      '{{.Name}} {{.Node.Name}} {{.Config.Description}}',
      `node112/${plugin()}`,
    ]);
    expect(inspected.trim()).toBe(`node112/${plugin()} node112 swarm e2e plugin`);
  });

  it('sets and removes on every copy, or on the node named', async () => {
    await dockerOk(host, ['plugin', 'set', plugin(), 'DEBUG=1']);
    for (const engine of [ENGINE, 'tcp://127.0.0.113:2375']) {
      expect((await dockerOk(engine, ['plugin', 'inspect', '--format', '{{.Settings.Env}}', plugin()])).trim()).toBe('[DEBUG=1]');
    }
    await dockerOk(host, ['plugin', 'rm', `node111/${plugin()}`]);
    expect((await dockerOk(host, ['plugin', 'ls', '--format', '{{.Name}}'])).trim()).toBe(`node112/${plugin()}`);
    await dockerOk(host, ['plugin', 'rm', plugin()]);
    expect((await dockerOk(host, ['plugin', 'ls', '-q'])).trim()).toBe('');
  });

  it('reports errors as the engine words them', async () => {
    const [missing, missingDirect] = await Promise.all([
      docker(host, ['plugin', 'inspect', 'nope']),
      docker(ENGINE, ['plugin', 'inspect', 'nope']),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(missingDirect.stderr);
    expect(missing.stderr).toMatch(/plugin "nope" not found/);

    await dockerOk(host, ['plugin', 'install', '--grant-all-permissions', '--disable', '--alias', 'e2e-alias', plugin()]);
    const disabled = await docker(host, ['plugin', 'disable', 'e2e-alias']);
    expect(disabled.code).toBe(1);
    // every copy that failed is named, one line each (Swarm classic's form)
    expect(disabled.stderr).toMatch(
      /Error response from daemon: node111: plugin is already disabled.*\nnode112: plugin is already disabled/,
    );
    await dockerOk(host, ['plugin', 'rm', 'e2e-alias']);

    const absent = `${registry.addr}/absent:1`;
    const [notThere, notThereDirect] = await Promise.all([
      docker(host, ['plugin', 'install', '--grant-all-permissions', absent]),
      docker(ENGINE, ['plugin', 'install', '--grant-all-permissions', absent]),
    ]);
    expect(notThere.code).toBe(1);
    expect(notThere.stderr).toBe(notThereDirect.stderr);
    // Every engine refused the pull before any progress: one Docker-format error, as from one engine.
    const pull = (origin: string) =>
      fetch(`${origin}/plugins/pull?remote=${absent}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[]' });
    const [pulled, pulledDirect] = await Promise.all([pull(base), pull('http://127.0.0.112:2375')]);
    expect(pulled.status).toBe(pulledDirect.status);
    expect(pulled.status).toBeGreaterThanOrEqual(400);
    expect(await pulled.json()).toEqual(await pulledDirect.json());

    const created = await docker(host, ['plugin', 'create', 'made-here', join(workdir.path, 'plugin')]);
    expect(created.code).toBe(1);
    expect(created.stderr).toMatch(/plugin create is not supported by swarm: .*docker plugin install/);
    const raw = await fetch(`${base}/plugins/create?name=x`, { method: 'POST' });
    expect(raw.status).toBe(501);
    expect(raw.headers.get('content-type')).toBe('application/json');
  });
});

describe('no healthy engine', () => {
  let lonely: Manager;

  beforeAll(async () => {
    lonely = await startManager({ discovery: DEAD_ENGINE, port: LONELY_PORT, expectNodes: 0 });
  });

  afterAll(async () => {
    await lonely?.stop();
  });

  async function untilListening(path: string): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetch(`http://127.0.0.1:${LONELY_PORT}${path}`);
      } catch (error) {
        if (attempt > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  it('answers registry and plugin calls with a Docker-format 500', async () => {
    const distribution = await untilListening(`/v1.41/distribution/${registry.addr}/dist:1/json`);
    expect(distribution.status).toBe(500);
    expect(await distribution.json()).toEqual({ message: 'No healthy node available in the cluster' });
    const inspect = await untilListening('/plugins/anything/json');
    expect(inspect.status).toBe(500);
    expect(await inspect.json()).toEqual({ message: 'No healthy node available in the cluster' });
    const listed = await untilListening('/plugins');
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([]);
  });
});
