// Index 156 and ports 29000-29009 belong to this file.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';

const SDK = fileURLToPath(new URL('../../plugin-sdk', import.meta.url));
const PORTS = { access: 29000, filter: 29001, strategy: 29002, discovery: 29003, isolated: 29004 };
const WATCHDOG_EXIT = 86;

// A third-party plugin whose hooks hang when the request says so: synchronous ones spin, async ones never settle.
const PLUGIN = `import { definePlugin, PASS } from '@swarm/plugin-sdk';
const asked = (config, word) => (config?.Env ?? []).includes(word);
const forever = () => { for (;;) {} };
export default definePlugin({
  name: 'swarm-plugin-hangs',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  register(ctx) {
    ctx.filter('spin', { useValue: { name: 'spin', prepare: (request) => ({ conditions: [], check: () => (asked(request.config, 'HANG=1') ? forever() : PASS) }) } });
    ctx.strategy('spin', { useValue: { name: 'spin', rank: (request, nodes) => (asked(request.config, 'HANG=1') ? forever() : nodes.map((node) => ({ node, score: 0 }))) } });
    ctx.authz('slow', { useValue: () => ({ authorize: (request) => (asked(request.body, 'HANG_AUTHZ=1') ? new Promise(() => {}) : { allowed: true }) }) });
    ctx.admission('slow', { useValue: () => ({ admit: (request) => (asked(request.config, 'HANG_ADMIT=1') ? new Promise(() => {}) : { allowed: true }) }) });
    ctx.discovery('spin', { useValue: { open: () => ({ watch: forever, close: async () => {} }) } });
  },
});
`;

let work: string;
let testbed: Testbed;
const managers: Manager[] = [];

/** A project folder with the plugin in ./hangs and this config. */
function project(name: string, config: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'hangs'), { recursive: true });
  writeFileSync(
    join(dir, 'hangs', 'package.json'),
    JSON.stringify({ name: 'swarm-plugin-hangs', version: '0.1.0', type: 'module', main: 'index.js' }),
  );
  writeFileSync(join(dir, 'hangs', 'index.js'), PLUGIN);
  writeFileSync(join(dir, 'swarm.config.js'), `export default ${config};\n`);
  return join(dir, 'swarm.config.js');
}

async function manage(port: number, config: string, expectNodes = 1): Promise<Manager> {
  const manager = await startManager({ discovery: testbed.addrs, port, expectNodes, args: ['--config', config] });
  managers.push(manager);
  return manager;
}

function create(port: number, env: string[]): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/containers/create`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ Image: 'busybox', Env: env }),
  });
}

async function ping(port: number): Promise<number> {
  const started = Date.now();
  const answer = await fetch(`http://127.0.0.1:${port}/_ping`, { signal: AbortSignal.timeout(2000) });
  expect(await answer.text()).toBe('OK');
  return Date.now() - started;
}

async function exited(manager: Manager, withinMs: number): Promise<number | null> {
  const deadline = Date.now() + withinMs;
  while (manager.running() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return manager.exitCode();
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'swarm-plugin-hangs-'));
  // the plugin imports the SDK by name, as an installed plugin does
  mkdirSync(join(work, 'node_modules', '@swarm'), { recursive: true });
  symlinkSync(SDK, join(work, 'node_modules', '@swarm', 'plugin-sdk'));
  testbed = await startTestbed({ first: 156, count: 1 });
});

afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  await testbed?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('an access plugin whose promise never settles', () => {
  let manager: Manager;
  beforeAll(async () => {
    const config = project(
      'access',
      `{ plugins: ['./hangs'], access: { authz: [['slow', {}, { timeout: '1s' }]], admission: [['slow', {}, { timeout: '1500ms' }]] } }`,
    );
    manager = await manage(PORTS.access, config);
  });

  it('fails the request at the limit with a coded error naming the plugin, and the manager keeps answering meanwhile', async () => {
    const started = Date.now();
    const pending = create(PORTS.access, ['HANG_AUTHZ=1']);
    expect(await ping(PORTS.access)).toBeLessThan(1000);
    const answer = await pending;
    const elapsed = Date.now() - started;
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({
      message:
        'authz "slow" (swarm-plugin-hangs@0.1.0) did not answer in authorize() within its time limit of 1s (the plugin entry\'s timeout option sets it)',
      code: 'SWARM_ERR_PLUGIN_TIMEOUT',
    });
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5000);
  });

  it('refuses a create whose admission controller never answers (fail closed), and counts the time-outs', async () => {
    const pending = create(PORTS.access, ['HANG_ADMIT=1']);
    await ping(PORTS.access);
    const answer = await pending;
    expect(answer.status).toBe(500);
    const body = (await answer.json()) as { message: string; code: string };
    expect(body.code).toBe('SWARM_ERR_PLUGIN_TIMEOUT');
    expect(body.message).toContain('admission "slow" (swarm-plugin-hangs@0.1.0) did not answer in admit() within its time limit of 1500ms');
    const metrics = await (await fetch(`http://127.0.0.1:${PORTS.access}/_swarm/metrics`)).text();
    expect(metrics).toContain('swarm_plugin_calls_total{kind="authz",name="slow",plugin="swarm-plugin-hangs@0.1.0",outcome="timeout"} 1');
    expect(metrics).toContain(
      'swarm_plugin_calls_total{kind="admission",name="slow",plugin="swarm-plugin-hangs@0.1.0",outcome="timeout"} 1',
    );
    expect(metrics).toMatch(/swarm_plugin_call_duration_seconds_count\{kind="authz",name="slow",plugin="swarm-plugin-hangs@0\.1\.0"\} \d+/);
    expect(manager.output()).toContain('did not answer in admit()');
  });
});

describe('a filter or strategy whose code never returns', () => {
  it('gets the manager ended by its watchdog with status 86, the filter and hook named, SIGTERM sent meanwhile', async () => {
    const config = project('filter', `{ plugins: ['./hangs'], scheduler: { filters: ['health', 'spin'] }, watchdog: { limit: '2s' } }`);
    const manager = await manage(PORTS.filter, config);
    const started = Date.now();
    void create(PORTS.filter, ['HANG=1']).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // the harness's stop: SIGTERM, SIGKILL only after 5 s; the watchdog's deadline comes first
    const stopping = manager.stop();
    const status = await exited(manager, 10_000);
    await stopping;
    expect(status, manager.output()).toBe(WATCHDOG_EXIT);
    expect(Date.now() - started).toBeLessThan(5000);
    const line = manager
      .output()
      .split('\n')
      .find((text) => text.includes('"watchdog":true'));
    expect(JSON.parse(line!)).toMatchObject({ level: 60, plugin: 'filter "spin" (swarm-plugin-hangs@0.1.0) in check()', limitMs: 2000 });
  });

  it('names a strategy stuck in rank()', async () => {
    const config = project('strategy', `{ plugins: ['./hangs'], scheduler: { strategy: 'spin' }, watchdog: { limit: '2s' } }`);
    const manager = await manage(PORTS.strategy, config);
    void create(PORTS.strategy, ['HANG=1']).catch(() => undefined);
    expect(await exited(manager, 10_000), manager.output()).toBe(WATCHDOG_EXIT);
    expect(manager.output()).toContain('"plugin":"strategy \\"spin\\" (swarm-plugin-hangs@0.1.0) in rank()"');
  });
});

describe('an isolated plugin (isolate: true) whose code never returns', () => {
  it('has its worker ended at the limit: the request gets a coded error, the manager keeps serving and counts it', async () => {
    const config = project(
      'isolated',
      `{ plugins: [['./hangs', { isolate: true, timeout: '1s' }]], scheduler: { filters: ['health', 'spin'], strategy: 'spin' }, watchdog: { limit: '5s' } }`,
    );
    const manager = await manage(PORTS.isolated, config);
    for (let attempt = 0; attempt < 2; attempt++) {
      const started = Date.now();
      const answer = await create(PORTS.isolated, ['HANG=1']);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({
        message:
          'filter "spin" (swarm-plugin-hangs@0.1.0) did not answer in prepare() within its time limit of 1s (the plugin entry\'s timeout option sets it)',
        code: 'SWARM_ERR_PLUGIN_TIMEOUT',
      });
      expect(await ping(PORTS.isolated)).toBeLessThan(1000);
    }
    expect(manager.running()).toBe(true);
    const metrics = await (await fetch(`http://127.0.0.1:${PORTS.isolated}/_swarm/metrics`)).text();
    expect(metrics).toContain('swarm_plugin_calls_total{kind="filter",name="spin",plugin="swarm-plugin-hangs@0.1.0",outcome="timeout"} 2');
    // a request that does not hang goes through the worker started afresh, to the engine
    const placed = await create(PORTS.isolated, []);
    expect(((await placed.json()) as { code?: string }).code).toBeUndefined();
  });
});

describe('a discovery backend whose code never returns', () => {
  it('gets the manager ended at start-up with the backend named', async () => {
    const config = project('discovery', `{ plugins: ['./hangs'], watchdog: { limit: '2s' } }`);
    const started = startManager({ discovery: 'spin://anywhere', port: PORTS.discovery, expectNodes: 1, args: ['--config', config] });
    await expect(started).rejects.toThrow(/swarm manage exited with 86/);
    await expect(started).rejects.toThrow(/"plugin":"discovery \\"spin\\" \(swarm-plugin-hangs@0\.1\.0\) in watch\(\)"/);
  });
});
