import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createSwarm, ErrorCodes, loadConfigFile, type SwarmError } from '@swarm/core';
import { PLUGIN_API_VERSION } from '@swarm/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(REPO, 'test', 'fixtures', 'third-party-plugin');
const SWARM = join(REPO, 'core', 'bin', 'swarm.js');
const PORT = 23001;
const BROKEN_PORT = 23006;
const INCOMPATIBLE =
  `plugin "swarm-plugin-maintenance@2.1.0" requires plugin API ^3.0.0, this swarm provides ${PLUGIN_API_VERSION}; ` +
  `either upgrade swarm (@swarm/core) to a version that provides plugin API ^3.0.0, or install a version of ` +
  `swarm-plugin-maintenance built for plugin API ${PLUGIN_API_VERSION} (one whose apiVersion range includes ${PLUGIN_API_VERSION})`;

let work: string;
let maintenance: Testbed;
let open: Testbed;
let manager: Manager | undefined;
let brokenManager: Manager | undefined;

/** `npm pack` into a folder of its own (copies of one package give tarballs of the same name). */
async function pack(dir: string): Promise<string> {
  const destination = mkdtempSync(join(work, 'tarball-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: dir });
  return join(destination, stdout.trim().split('\n').pop()!);
}

/** A project outside the repository with the packed tarballs installed from disk. */
async function project(name: string, tarballs: string[], config: string): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], { cwd: dir });
  writeFileSync(join(dir, 'swarm.config.js'), config);
  return dir;
}

async function swarmCli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SWARM, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const docker = async (...args: string[]): Promise<string> =>
  (await run('docker', ['-H', `tcp://127.0.0.1:${PORT}`, ...args])).stdout.trim();

const CONFIG = `export default {
  plugins: ['maintenance'],
  scheduler: { filters: ['health', 'port', 'constraint', 'maintenance'], strategy: 'spread' },
};
`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'swarm-third-party-'));
  const engines = Promise.all([startTestbed({ first: 1, count: 1, labels: ['maintenance=true'] }), startTestbed({ first: 2, count: 1 })]);
  const incompatibleSource = join(work, 'incompatible-source');
  cpSync(FIXTURE, incompatibleSource, { recursive: true });
  for (const file of ['index.js', 'package.json']) {
    const path = join(incompatibleSource, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace("apiVersion: '^2.0.0'", "apiVersion: '^3.0.0'").replaceAll('1.2.0', '2.1.0'));
  }
  // The same plugin with a bug: its check reads a label that only some engines have.
  const brokenSource = join(work, 'broken-source');
  cpSync(FIXTURE, brokenSource, { recursive: true });
  const filterFile = join(brokenSource, 'maintenance-filter.js');
  writeFileSync(
    filterFile,
    readFileSync(filterFile, 'utf8').replace("node.labels().maintenance === 'true'", "node.labels().maintenance.toUpperCase() === 'TRUE'"),
  );
  const [sdk, plugin, incompatible, broken] = await Promise.all([
    pack(join(REPO, 'plugin-sdk')),
    pack(FIXTURE),
    pack(incompatibleSource),
    pack(brokenSource),
  ]);
  await project('site', [sdk, plugin], CONFIG);
  await project('site-next', [sdk, incompatible], CONFIG);
  await project('site-broken', [sdk, broken], CONFIG);
  [maintenance, open] = await engines;
}, 170_000);

afterAll(async () => {
  await manager?.stop();
  await brokenManager?.stop();
  await Promise.all([maintenance?.stop(), open?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a third-party filter installed from its npm tarball', () => {
  it('is listed by `swarm plugins` from the project folder', async () => {
    const result = await swarmCli(['plugins', '--json'], join(work, 'site'));
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    expect(rows.find((row) => row.name === 'swarm-plugin-maintenance')).toEqual({
      name: 'swarm-plugin-maintenance',
      package: 'swarm-plugin-maintenance',
      version: '1.2.0',
      kinds: ['filter'],
      provides: ['filter maintenance'],
      apiVersion: '^2.0.0',
      compatible: true,
      builtin: false,
      resolved: join(work, 'site', 'node_modules', 'swarm-plugin-maintenance'),
    });
  });

  it('loads and registers through createSwarm with the config file', async () => {
    const file = await loadConfigFile({ cwd: join(work, 'site') });
    const swarm = await createSwarm(file!.input, { configDir: file!.dir });
    expect(swarm.deployment.plugins.map((plugin) => plugin.packageName)).toContain('swarm-plugin-maintenance');
    expect(swarm.scheduler.filterNames).toEqual(['health', 'port', 'constraint', 'maintenance']);
  });

  it('keeps containers off the engine in maintenance when `swarm manage` schedules', async () => {
    manager = await startManager({
      discovery: `${maintenance.addrs},${open.addrs}`,
      port: PORT,
      expectNodes: 2,
      args: ['--config', join(work, 'site', 'swarm.config.js')],
    });
    for (const name of ['tp1', 'tp2', 'tp3']) await docker('run', '-d', '--name', name, 'busybox:local', 'sleep', '300');
    const names = (await docker('ps', '--format', '{{.Names}}')).split('\n').sort();
    const explained = await swarmCli(['schedule', '--explain', '-H', `tcp://127.0.0.1:${PORT}`, 'busybox:local'], work);
    expect(names, `${explained.stdout}\n${manager.output()}`).toEqual(['node2/tp1', 'node2/tp2', 'node2/tp3']);
    expect(explained.stdout).toMatch(/^node1\s+no\s+-\s+-\s+maintenance: node in maintenance$/m);
    const refused = await docker('run', '-d', '-e', 'constraint:node==node1', 'busybox:local', 'sleep', '300').catch(
      (error: { stderr: string }) => error.stderr,
    );
    expect(refused).toContain('node not in maintenance');
    await docker('rm', '-f', 'tp1', 'tp2', 'tp3');
  });

  it('refuses the copy that wants plugin API ^3.0.0, with the coded error', async () => {
    const result = await swarmCli(['manage', '127.0.0.3:2375'], join(work, 'site-next'));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${INCOMPATIBLE}\n`);
    const file = await loadConfigFile({ cwd: join(work, 'site-next') });
    const error = (await createSwarm(file!.input, { configDir: file!.dir }).catch((e: unknown) => e)) as SwarmError;
    expect(error.code).toBe(ErrorCodes.PLUGIN_INCOMPATIBLE);
    expect(error.message).toBe(INCOMPATIBLE);
  });
});

describe('a third-party filter that throws at a placement', () => {
  it('fails the create with a 500 naming the filter and its package, logs it once, counts it, and keeps serving', async () => {
    brokenManager = await startManager({
      discovery: `${maintenance.addrs},${open.addrs}`,
      port: BROKEN_PORT,
      expectNodes: 2,
      args: ['--config', join(work, 'site-broken', 'swarm.config.js')],
    });
    const host = `tcp://127.0.0.1:${BROKEN_PORT}`;
    // the plugin, the hook and the node it failed on, then the plugin's own words
    const expected = new RegExp(
      String.raw`filter "maintenance" \(swarm-plugin-maintenance@1\.2\.0\) failed in check\(\) on node "[^"]+": ` +
        String.raw`Cannot read properties of undefined \(reading 'toUpperCase'\)`,
    );
    for (let attempt = 0; attempt < 3; attempt++) {
      const refused = await run('docker', ['-H', host, 'run', '-d', 'busybox:local', 'true']).catch((error: { stderr: string }) => error);
      expect(refused).toHaveProperty('stderr');
      expect((refused as { stderr: string }).stderr).toMatch(expected);
    }
    const answer = await fetch(`http://127.0.0.1:${BROKEN_PORT}/containers/create`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Image: 'busybox:local' }),
    });
    expect(answer.status).toBe(500);
    const body = (await answer.json()) as { message: string; code: string };
    expect(Object.keys(body).sort()).toEqual(['code', 'message']);
    expect(body.message).toMatch(new RegExp(`^${expected.source}$`));
    expect(body.code).toBe('SWARM_ERR_PLUGIN_FAILED');
    // still serving, nothing created
    expect((await run('docker', ['-H', host, 'ps', '-aq'])).stdout.trim()).toBe('');
    const logged = brokenManager.output().match(/failed at a placement/g) ?? [];
    expect(logged).toHaveLength(1);
    expect(brokenManager.output()).toContain('swarm-plugin-maintenance@1.2.0');
    const metrics = await (await fetch(`http://127.0.0.1:${BROKEN_PORT}/_swarm/metrics`)).text();
    expect(metrics).toContain('swarm_plugin_failures_total{kind="filter",name="maintenance",plugin="swarm-plugin-maintenance@1.2.0"} 4');
  });
});
