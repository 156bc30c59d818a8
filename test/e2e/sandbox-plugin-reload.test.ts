import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * Issue 44 item 6, the author's inner loop: `swarm sandbox --plugin DIR` loads a plugin from its
 * folder and reloads it when a file there changes, over engines that keep their containers and,
 * with `--engine-ports FROM`, their ports. The built CLI, the real docker CLI, no testbed.
 *
 * Manager on 29031; engines on 29050-29052.
 */

const run = promisify(execFile);
const SWARM = fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url));
const SDK = fileURLToPath(new URL('../../plugin-sdk', import.meta.url));
const HOST = 'tcp://127.0.0.1:29031';
const ENGINE_PORT = 29050;
const folder = mkdtempSync(join(tmpdir(), 'swarm-sandbox-plugin-'));
const pluginDir = join(folder, 'swarm-plugin-pick');
let sandbox: ChildProcess;
let stdout = '';
let output = '';

const docker = async (...args: string[]): Promise<string> => (await run('docker', ['-H', HOST, ...args])).stdout.trim();

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await Promise.resolve()
      .then(condition)
      .catch(() => false))
  ) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; sandbox printed:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A filter `pick` that lets only one node through: the plugin's code, as its author edits it. */
function writePick(node: string): void {
  writeFileSync(
    join(pluginDir, 'index.js'),
    `import { definePlugin, PASS, fail } from '@swarm/plugin-sdk';
export default definePlugin({
  name: 'swarm-plugin-pick',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  register(ctx) {
    ctx.filter('pick', {
      useFactory: () => ({
        name: 'pick',
        prepare: () => ({ conditions: ['node==${node}'], check: (node) => (node.name === '${node}' ? PASS : fail('not ${node}')) }),
      }),
    });
  },
});
`,
  );
}

const banners = (): number => stdout.split('Ctrl-C').length - 1;

async function nodeOf(name: string): Promise<string> {
  return docker('inspect', '--format', '{{.Node.Name}}', name);
}

beforeAll(async () => {
  mkdirSync(join(folder, 'node_modules', '@swarm'), { recursive: true });
  symlinkSync(SDK, join(folder, 'node_modules', '@swarm', 'plugin-sdk'), 'dir');
  mkdirSync(pluginDir);
  writeFileSync(
    join(pluginDir, 'package.json'),
    JSON.stringify({ name: 'swarm-plugin-pick', version: '0.1.0', type: 'module', main: 'index.js' }),
  );
  writePick('sandbox-1');
  sandbox = spawn(
    process.execPath,
    [
      SWARM,
      'sandbox',
      '--nodes',
      '3',
      '--engine-ports',
      String(ENGINE_PORT),
      '-H',
      HOST,
      '-f',
      'health',
      '-f',
      'pick',
      '--plugin',
      './swarm-plugin-pick',
    ],
    { cwd: folder },
  );
  sandbox.stdout!.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), (output += chunk.toString())));
  sandbox.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(() => banners() === 1, 90_000);
}, 120_000);

afterAll(() => {
  if (sandbox.exitCode === null) sandbox.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

describe('swarm sandbox --plugin DIR --engine-ports FROM', () => {
  it('starts the engines on FROM, FROM+1, ...', async () => {
    const status = await docker('info', '--format', '{{json .SystemStatus}}');
    for (let i = 0; i < 3; i++) expect(status).toContain(`127.0.0.1:${ENGINE_PORT + i}`);
  });

  it("places with the plugin's filter, loaded from its folder", async () => {
    await docker('run', '-d', '--name', 'first', 'busybox', 'true');
    expect(await nodeOf('first')).toBe('sandbox-1');
  });

  it('reloads the plugin when its code changes, over the same engines and their containers', async () => {
    writePick('sandbox-2');
    await until(() => banners() === 2, 90_000);
    expect(output).toContain('plugin changed: reloading the sandbox manager');
    await until(async () => (await docker('info', '--format', '{{json .SystemStatus}}')).includes('127.0.0.1:29052'), 30_000);
    await docker('run', '-d', '--name', 'second', 'busybox', 'true');
    expect(await nodeOf('second')).toBe('sandbox-2');
    // the engines were kept: the first container is still there, on its node
    expect(await nodeOf('first')).toBe('sandbox-1');
  }, 150_000);

  it('stops on SIGTERM, manager and engines', async () => {
    const exited = new Promise<number | null>((resolve) => sandbox.once('exit', (code) => resolve(code)));
    sandbox.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 30_000);
});
