import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, PASS, type Filter } from '@swarm/plugin-sdk';
import { fakeNodes, runConfig } from '@swarm/plugin-sdk/testing';
import { createScheduler } from '../dist/scheduler/index.js';
import { pluginGuard } from '../dist/plugins/plugin-guard.js';
import { timeLimited } from '../dist/plugins/time-limited.js';
import { guardPlugin } from '../dist/plugins/plugin-boundary.js';
import { resolveConfig } from '../dist/config/resolve.js';
import { validateConfigShape } from '../dist/config/schema.js';
import { WATCHDOG_EXIT_STATUS } from '../dist/plugins/watchdog/watchdog.js';
import { watchdogLimitMs } from '../dist/plugins/watchdog/default-limit.js';
import { defaultFilters, strategy } from './scheduler-support.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const sdkTesting = fileURLToPath(new URL('../../plugin-sdk/dist/testing/index.js', import.meta.url));
const nodes = fakeNodes([{ name: 'node1' }, { name: 'node2' }, { name: 'node3' }]);
const never = <T>() => new Promise<T>(() => undefined);

/** A process that places a container through a filter that never returns, with the watchdog on. */
function blockedManager(limitMs: number, onStart?: (pid: number) => void) {
  const script = `
    import { createScheduler } from '${dist}scheduler/index.js';
    import { pluginGuard } from '${dist}plugins/plugin-guard.js';
    import { CallMarks } from '${dist}plugins/watchdog/call-marks.js';
    import { startWatchdog } from '${dist}plugins/watchdog/watchdog.js';
    import { fakeNodes, runConfig } from '${sdkTesting}';
    // as manage does: a JS handler for SIGTERM, which a blocked loop never runs
    process.on('SIGTERM', () => process.exit(0));
    const marks = new CallMarks(true);
    startWatchdog({ limitMs: ${limitMs}, format: 'json', marks });
    const guard = pluginGuard((kind, name) => (name === 'spin' ? 'swarm-plugin-spin@1.0.0' : undefined), undefined, marks);
    const spin = { name: 'spin', prepare: () => ({ conditions: [], check: () => { for (;;) {} } }) };
    const rank = { name: 'spread', rank: (request, nodes) => nodes.map((node) => ({ node, score: 0 })) };
    const scheduler = createScheduler([spin], rank, { guard });
    setTimeout(() => { process.stdout.write('placing\\n'); scheduler.select(scheduler.request(runConfig({})), fakeNodes([{ name: 'n1' }])); }, 200);
  `;
  const file = join(mkdtempSync(join(tmpdir(), 'swarm-watchdog-')), 'blocked.mjs');
  writeFileSync(file, script);
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('placing')) onStart?.(child.pid!);
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  return new Promise<{ status: number | null; signal: string | null; output: string; ms: number }>((resolve) =>
    child.on('exit', (status, signal) => resolve({ status, signal, output, ms: Date.now() - started })),
  );
}

describe('a plugin that never returns', () => {
  it('gets the process ended by the watchdog with its own status, the plugin and hook named in the log', async () => {
    const ended = await blockedManager(1000);
    expect(ended.status, ended.output).toBe(WATCHDOG_EXIT_STATUS);
    const line = ended.output.split('\n').find((text) => text.includes('"watchdog":true'));
    expect(line, ended.output).toBeDefined();
    const record = JSON.parse(line!) as Record<string, unknown>;
    expect(record['plugin']).toBe('filter "spin" (swarm-plugin-spin@1.0.0) in check()');
    expect(record['level']).toBe(60);
    expect(record['blockedMs']).toBeGreaterThanOrEqual(1000);
    expect(ended.ms).toBeLessThan(10_000);
  });

  it('still ends on SIGTERM while blocked: at the watchdog deadline, since the loop cannot run the handler', async () => {
    let sentAt = 0;
    const ended = await blockedManager(1500, (pid) => {
      setTimeout(() => {
        sentAt = Date.now();
        process.kill(pid, 'SIGTERM');
      }, 100);
    });
    expect(sentAt).toBeGreaterThan(0);
    expect(ended.status, ended.output).toBe(WATCHDOG_EXIT_STATUS);
    expect(Date.now() - sentAt).toBeLessThan(8000);
  });

  it('names the contract when prepare() returns a Promise, and check() something other than a verdict', () => {
    const asyncPrepare = { name: 'late', prepare: async () => ({ conditions: [], check: () => PASS }) } as unknown as Filter;
    const scheduler = createScheduler([asyncPrepare], strategy('spread'), { pluginOf: () => 'swarm-plugin-late@0.1.0' });
    expect(() => scheduler.select(scheduler.request(runConfig({})), nodes)).toThrow(
      'filter "late" (swarm-plugin-late@0.1.0) broke its contract: prepare() must return the check synchronously; it returned a Promise',
    );
    const asyncCheck = { name: 'late', prepare: () => ({ conditions: [], check: async () => PASS }) } as unknown as Filter;
    const checking = createScheduler([...defaultFilters(), asyncCheck], strategy('spread'));
    expect(() => checking.select(checking.request(runConfig({})), nodes)).toThrow(
      'filter "late" (built-in) broke its contract: check() must return a verdict ({ pass: true } or fail(reason)) synchronously; it returned a Promise',
    );
  });
});

describe('a plugin call that never settles', () => {
  const guard = pluginGuard(() => 'swarm-plugin-slow@0.1.0', undefined);
  const calls: string[] = [];
  guard.report({ pluginCall: (kind, name, plugin, _seconds, outcome) => calls.push(`${kind}/${name}/${plugin}/${outcome}`) });

  it('fails an authorizer call at its limit with a coded error naming the plugin and the limit', async () => {
    const authorizer = timeLimited({ authorize: () => never() }, 'authz', 'slow', guard, { timeoutMs: 150, failurePolicy: 'fail' });
    const started = Date.now();
    await expect(authorizer.authorize()).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_TIMEOUT,
      httpStatus: 500,
      message:
        'authz "slow" (swarm-plugin-slow@0.1.0) did not answer in authorize() within its time limit of 150ms (the plugin entry\'s timeout option sets it)',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(calls).toContain('authz/slow/swarm-plugin-slow@0.1.0/timeout');
  });

  it("lets a create through unchanged when an admission controller's failurePolicy is ignore, and refuses it when fail", async () => {
    const hanging = { admit: () => never() };
    const open = timeLimited(hanging, 'admission', 'slow', guard, { timeoutMs: 100, failurePolicy: 'ignore' }, (method) =>
      method === 'admit' ? { value: { allowed: true } } : undefined,
    );
    await expect(open.admit()).resolves.toEqual({ allowed: true });
    const closed = timeLimited(hanging, 'admission', 'slow', guard, { timeoutMs: 100, failurePolicy: 'fail' });
    await expect(closed.admit()).rejects.toMatchObject({ code: ErrorCodes.PLUGIN_TIMEOUT });
  });

  it("holds a driver's or discovery backend's calls to the limit, but not a transfer that reports progress", async () => {
    const driver = guardPlugin(
      {
        createContainer: () => never(),
        pull: (_ref: string, _auth: unknown, onProgress: () => void) => (onProgress(), new Promise((resolve) => setTimeout(resolve, 300))),
      },
      'driver',
      'sim',
      guard,
      100,
    );
    await expect(driver.createContainer()).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_TIMEOUT,
      message: expect.stringContaining(
        'driver "sim" (swarm-plugin-slow@0.1.0) did not answer in createContainer() within its time limit of 100ms',
      ),
    });
    await expect(driver.pull('busybox', undefined, () => undefined)).resolves.toBeUndefined();
    const discovery = guardPlugin({ register: () => never() }, 'discovery', 'etcd2', guard, 100);
    await expect(discovery.register()).rejects.toMatchObject({ code: ErrorCodes.PLUGIN_TIMEOUT });
  });
});

describe('plugin call settings in swarm.config.js', () => {
  const resolve = (input: unknown) => resolveConfig([{ origin: 'file', input: validateConfigShape(input, 'swarm.config.js') }]);

  it('reads a plugin entry with options and access entries with their call settings', () => {
    const resolved = resolve({
      plugins: ['a', ['b', { timeout: '2s', isolate: true }]],
      watchdog: { limit: '3s' },
      access: { admission: [['policy', {}, { timeout: '500ms', failurePolicy: 'ignore' }]] },
    });
    expect(resolved.config.plugins).toEqual(['a', 'b']);
    expect(resolved.pluginSettings?.get('b')).toEqual({ timeoutMs: 2000, isolate: true });
    expect(resolved.watchdogMs).toBe(3000);
    expect(resolved.config.access?.admission[0]).toMatchObject({ name: 'policy', call: { timeoutMs: 500, failurePolicy: 'ignore' } });
  });

  it('runs the watchdog by default only when plugin packages run in process: 10 s then, none for swarm alone or isolated packages', () => {
    expect(watchdogLimitMs(resolve({}))).toBe(0);
    expect(watchdogLimitMs(resolve({ plugins: ['a'] }))).toBe(10_000);
    expect(watchdogLimitMs(resolve({ plugins: [['a', { isolate: true }]] }))).toBe(0);
    expect(watchdogLimitMs(resolve({ plugins: [['a', { isolate: true }], 'b'] }))).toBe(10_000);
    expect(watchdogLimitMs(resolve({ watchdog: { limit: '3s' } }))).toBe(3000);
    expect(watchdogLimitMs(resolve({ plugins: ['a'], watchdog: { limit: 0 } }))).toBe(0);
  });

  it('refuses a bad limit and an authorizer that would fail open, naming the key path', () => {
    expect(() => resolve({ plugins: [['b', { timeout: 'soon' }]] })).toThrow(/plugins\[0\]\[1\]\.timeout: .*write a duration such as "5s"/);
    expect(() => resolve({ access: { authz: [['rules', {}, { failurePolicy: 'ignore' }]] } })).toThrow(
      "access.authz[0][2].failurePolicy: an authz plugin fails closed: only admission controllers can take failurePolicy: 'ignore'",
    );
    expect(() => resolve({ plugins: [['b', { timeot: '1s' }]] })).toThrow(/plugins\[0\]\[1\]\.timeot/);
  });
});
