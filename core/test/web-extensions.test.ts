import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createSwarm, type Swarm } from '@swarm/core';
import { ErrorCodes } from '@swarm/plugin-sdk';
import type { ManagerView } from '@swarm/plugin-sdk/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempProject, type TempProject } from './support/temp-project.js';

// A third-party plugin (plain JS, through the public SDK only) with an in-memory driver over the
// test kit's fake nodes and a web extension "probe" whose routes exercise the contract.
const PLUGIN = `import { definePlugin, defineError, ErrorCodes } from '@swarm/plugin-sdk';
import { fakeNodes } from '@swarm/plugin-sdk/testing';

const nodes = fakeNodes([
  { name: 'n1', labels: { zone: 'a' }, containers: [{ name: 'web', image: 'nginx', memory: 2 ** 30 }] },
  { name: 'n2', labels: { zone: 'b' } },
]);
const badAsk = defineError('probe.bad-ask', { code: ErrorCodes.INVALID_ARGUMENT, message: () => 'that is not how to ask' });
export const seen = { mounts: 0, unmounts: 0, aborted: 0, view: undefined };

export default definePlugin({
  name: 'swarm-plugin-probe',
  version: '0.3.0',
  apiVersion: '^2.0.0',
  register(ctx) {
    ctx.driver('memory', { useFactory: (resolver) => {
      const scheduler = resolver.resolve('swarm:Scheduler');
      const listeners = new Set();
      return {
        driverName: 'memory',
        async start() {},
        async stop() {},
        nodes: () => nodes,
        containers: () => nodes.flatMap((node) => node.containers()),
        container: () => undefined,
        explain: (config) => scheduler.explain(scheduler.request(config), nodes),
        info: () => ({ systemStatus: [['Strategy', scheduler.strategyName], ['Nodes', '2'], [' n1', '127.0.0.2:2375'], ['  └ Status', 'Healthy']] }),
        subscribe(listener) { listeners.add(listener); return () => listeners.delete(listener); },
        emit(event) { for (const listener of listeners) listener(event); },
      };
    } });
    ctx.web('probe', { useValue: {
      mount(host) {
        seen.mounts++;
        seen.view = host.view;
        if (host.options.fail) throw new Error('cannot mount today');
        return [
          { method: 'GET', path: '/', handle: (req, res) => res.send(200, '<p>probe</p>', { 'Content-Type': 'text/html' }) },
          { method: 'GET', path: '/info', handle: (req, res) => res.json(200, { prefix: host.prefix, options: host.options, path: req.path, q: req.query.get('q'), nodes: host.view.nodes().map((n) => n.name) }) },
          { method: 'GET', path: '/items/:id', handle: (req, res) => res.json(200, { id: req.params.id }) },
          { method: 'POST', path: '/echo', handle: async (req, res) => res.json(201, { got: await req.json() }) },
          { method: 'GET', path: '/bad', handle: () => { throw badAsk(); } },
          { method: 'GET', path: '/broken', handle: () => { throw new TypeError('x is undefined'); } },
          { method: 'GET', path: '/silent', handle: () => {} },
          { method: 'GET', path: '/stream', handle: (req, res) => {
            const stream = res.stream(200, { 'Content-Type': 'text/plain' }, { compress: true });
            stream.write('first\\n');
            const timer = setInterval(() => stream.write('tick\\n'), 20);
            req.signal.addEventListener('abort', () => { clearInterval(timer); seen.aborted++; });
          } },
        ];
      },
      unmount() { seen.unmounts++; },
    } });
  },
});
`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let project: TempProject;
let swarm: Swarm;
let port: number;
let seen: { mounts: number; unmounts: number; aborted: number; view: ManagerView };

function build(web: Record<string, boolean | Record<string, string | number | boolean>>, extra: object = {}): Promise<Swarm> {
  return createSwarm(
    {
      plugins: ['./probe'],
      cluster: { driver: 'memory', discovery: 'nodes://127.0.0.1:1' },
      api: { hosts: ['tcp://127.0.0.1:0'] },
      web,
      ...extra,
    },
    { configDir: project.dir },
  );
}

beforeAll(async () => {
  project = createTempProject();
  project.write('probe/package.json', JSON.stringify({ name: 'swarm-plugin-probe', type: 'module', main: 'index.js' }));
  const entry = project.write('probe/index.js', PLUGIN);
  swarm = await build({ probe: { color: 'blue' } });
  await swarm.start({ api: true });
  port = Number(swarm.addresses[0]!.split(':').pop());
  seen = ((await import(entry)) as { seen: typeof seen }).seen;
});

afterAll(async () => {
  await swarm?.stop();
  project?.remove();
});

describe('web extensions', () => {
  it('serve their routes under /swarm/<name>/ with their settings, and redirect the bare prefix', async () => {
    const page = await call(port, 'GET', '/swarm/probe/');
    expect(page).toMatchObject({ status: 200, body: '<p>probe</p>' });
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const bare = await call(port, 'GET', '/swarm/probe?x=1');
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe('/swarm/probe/?x=1');
    const info = await call(port, 'GET', '/swarm/probe/info?q=zone');
    expect(JSON.parse(info.body)).toEqual({
      prefix: '/swarm/probe',
      options: { color: 'blue' },
      path: '/info',
      q: 'zone',
      nodes: ['n1', 'n2'],
    });
    expect(JSON.parse((await call(port, 'GET', '/swarm/probe/items/a%20b')).body)).toEqual({ id: 'a b' });
  });

  it('read JSON bodies through the API limits and answer errors in Docker format', async () => {
    const echo = await call(port, 'POST', '/swarm/probe/echo', '{"a":1}', { 'Content-Type': 'application/json' });
    expect(echo).toMatchObject({ status: 201, body: '{"got":{"a":1}}' });
    expect(await call(port, 'POST', '/swarm/probe/echo', '{nope', { 'Content-Type': 'application/json' })).toMatchObject({ status: 400 });
    expect(await call(port, 'GET', '/swarm/probe/bad')).toMatchObject({ status: 400, body: '{"message":"that is not how to ask"}' });
    expect(await call(port, 'GET', '/swarm/probe/broken')).toMatchObject({
      status: 500,
      body: '{"message":"web extension \\"probe\\" failed: x is undefined"}',
    });
    expect(await call(port, 'GET', '/swarm/probe/silent')).toMatchObject({
      status: 500,
      body: '{"message":"web extension \\"probe\\" did not answer GET /silent"}',
    });
    expect(await call(port, 'GET', '/swarm/probe/missing')).toMatchObject({ status: 404 });
    expect(await call(port, 'DELETE', '/swarm/probe/info')).toMatchObject({ status: 404 });
  });

  it('stream gzip-compressed when asked and accepted, and tell the route when the client leaves', async () => {
    const abortedBefore = seen.aborted;
    const chunks = await new Promise<{ encoding: string | undefined; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/swarm/probe/stream', headers: { 'Accept-Encoding': 'gzip' } }, async (res) => {
        const { createGunzip } = await import('node:zlib');
        const gunzip = createGunzip();
        let text = '';
        gunzip.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          // flushed per write: the stream is readable while it is still open
          if (text.includes('tick\ntick\n')) {
            req.destroy();
            resolve({ encoding: res.headers['content-encoding'], text });
          }
        });
        res.pipe(gunzip);
      });
      req.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)));
      req.end();
    });
    expect(chunks.encoding).toBe('gzip');
    expect(chunks.text.startsWith('first\ntick\n')).toBe(true);
    await expect.poll(() => seen.aborted).toBe(abortedBefore + 1);
  });

  it('give a read-only view of the manager: plugins, the CLI explanation text, run options, metrics', async () => {
    const view = seen.view;
    expect(view.driver).toBe('memory');
    expect(view.apiVersion).toBe('2.3.0');
    const probe = view.plugins().find((plugin) => plugin.name === 'swarm-plugin-probe');
    expect(probe).toEqual({
      name: 'swarm-plugin-probe',
      version: '0.3.0',
      apiRange: '^2.0.0',
      packageName: 'swarm-plugin-probe',
      builtin: false,
      provides: ['cluster driver memory', 'web extension probe'],
    });
    expect(view.plugins().some((plugin) => plugin.builtin && plugin.provides.includes('filter constraint'))).toBe(true);

    const config = view.runConfig(['-m', '1g', '-e', 'constraint:zone==a', '-p', '80:80', 'nginx', 'sh']);
    expect(config).toMatchObject({ Image: 'nginx', Cmd: ['sh'], Env: ['constraint:zone==a'], HostConfig: { Memory: 2 ** 30 } });
    const { explanation, text } = view.explain(config);
    expect(explanation.chosen).toBe('n1');
    expect(text).toContain('Strategy: spread\n');
    expect(text).toMatch(/n2 +no +- +- +constraint: /);
    expect(text.trimEnd().split('\n').at(-1)).toBe('Chosen: n1');
    expect(() => view.runConfig(['--nope', 'nginx'])).toThrow(
      expect.objectContaining({ code: ErrorCodes.INVALID_ARGUMENT, message: "unknown option '--nope' (Did you mean --name?)" }),
    );
    expect(() => view.runConfig(['-m'])).toThrow(/argument missing/);

    const container = view.containers()[0]!;
    expect(view.placement(container)).toEqual({ reschedulePolicy: 'off', constraints: [], affinities: [], history: [] });
    expect(view.clusterRows()).toEqual([
      ['Strategy', 'spread'],
      ['Nodes', '2'],
    ]);
    expect(view.discovery()).toEqual({ uri: 'nodes://127.0.0.1:1', scheme: 'nodes', state: 'driver' });
    expect(view.replication()).toEqual({ enabled: false, role: 'primary' });
    const metrics = view.metrics();
    expect(metrics.nodes).toEqual({ healthy: 2, unhealthy: 0, pending: 0, disconnected: 0 });
    expect(metrics.containers).toEqual({ total: 1, running: 1 });
    expect(metrics.apiRequests).toBeGreaterThan(5);
    expect(metrics.apiErrors).toBeGreaterThanOrEqual(2);
    (swarm.cluster as unknown as { emit(event: object): void }).emit({ Type: 'container', Action: 'start', id: 'x' });
    expect(view.metrics().events).toBe(metrics.events + 1);
  });

  it('count web routes in the API metrics under their route pattern', async () => {
    const text = (await call(port, 'GET', '/_swarm/metrics')).body;
    expect(text).toMatch(/swarm_api_requests_total\{method="GET",route="\/swarm\/probe\/items\/:id",status="200"\} 1/);
  });

  it('are mounted only when the config names them, and unmounted when the server closes', async () => {
    const other = await build({});
    await other.start({ api: true });
    const otherPort = Number(other.addresses[0]!.split(':').pop());
    const notServed = await call(otherPort, 'GET', '/swarm/probe/');
    expect(notServed.status).toBe(404);
    expect(JSON.parse(notServed.body).message).toMatch(
      /^page not found: no web extension "probe" is served here \(swarm manage --ui serves/,
    );
    // Docker's own swarm-mode routes under /swarm keep their answer
    expect((await call(otherPort, 'POST', '/swarm/init', '{}')).status).toBe(503);
    expect((await call(otherPort, 'GET', '/v1.41/swarm')).status).toBe(503);
    await other.stop();
    const mounts = seen.mounts;
    const unmounts = seen.unmounts;
    const again = await build({ probe: true });
    await again.start({ api: true });
    expect(seen.mounts).toBe(mounts + 1);
    await again.stop();
    expect(seen.unmounts).toBe(unmounts + 1);
  });

  it('README: the capacity example is the tested fixture, and serves what it says', async () => {
    const fixture = fileURLToPath(new URL('../../test/fixtures/capacity-web-extension', import.meta.url));
    const source = readFileSync(`${fixture}/index.js`, 'utf8');
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain(source.trim());
    const capacity = await createSwarm(
      {
        plugins: ['./probe', fixture],
        cluster: { driver: 'memory', discovery: 'nodes://127.0.0.1:1' },
        api: { hosts: ['tcp://127.0.0.1:0'] },
        web: { capacity: true },
      },
      { configDir: project.dir },
    );
    await capacity.start({ api: true });
    try {
      const capacityPort = Number(capacity.addresses[0]!.split(':').pop());
      expect(JSON.parse((await call(capacityPort, 'GET', '/swarm/capacity/')).body)).toEqual([
        { node: 'n1', healthy: true, cpus: 4, memory: 3 * 2 ** 30 },
        { node: 'n2', healthy: true, cpus: 4, memory: 4 * 2 ** 30 },
      ]);
      expect(await call(capacityPort, 'GET', '/swarm/capacity/n2')).toMatchObject({ status: 200 });
      expect(await call(capacityPort, 'GET', '/swarm/capacity/zz')).toMatchObject({ status: 404, body: '{"message":"no node named zz"}' });
    } finally {
      await capacity.stop();
    }
  });

  it('refuse an unknown extension name with the available ones, and name an extension that fails to mount', async () => {
    await expect(build({ nope: true })).rejects.toThrow('web.nope: unknown web extension "nope"; available: probe');
    await expect(build({ 'Bad Name': true })).rejects.toThrow('web.Bad Name: invalid web extension name "Bad Name"');
    await expect(build({ init: true })).rejects.toThrow(
      /web.init: invalid web extension name "init": .*none of Docker's \/swarm\/ operations/,
    );
    const failing = await build({ probe: { fail: true } });
    await expect(failing.start({ api: true })).rejects.toThrow('web extension "probe" failed to mount: cannot mount today');
  });
});
