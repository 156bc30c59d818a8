import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Trying swarm with nothing but its packed tarballs (what `npm run pack` writes) installed in an
// empty folder: `npx swarm sandbox`, no engine, no checkout, no config file.
// Port 26261 belongs to this file.
const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const PORT = 26261;
const HOST = `tcp://127.0.0.1:${PORT}`;
const work = mkdtempSync(join(tmpdir(), 'swarm-install-sandbox-'));
const project = join(work, 'try-swarm');
let sandbox: ChildProcess | undefined;
let printed = '';

const docker = async (...args: string[]): Promise<string> => (await run('docker', ['-H', HOST, ...args])).stdout.trim();

beforeAll(async () => {
  const packages = join(work, 'packages');
  mkdirSync(packages);
  const workspaces = ['plugin-sdk', 'core', ...readdirSync(join(REPO, 'plugins')).map((name) => `plugins/${name}`)];
  await run('npm', ['pack', '--silent', '--pack-destination', packages, ...workspaces.flatMap((workspace) => ['--workspace', workspace])], {
    cwd: REPO,
    maxBuffer: 1 << 24,
  });
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'try-swarm', private: true }));
  const tarballs = readdirSync(packages).map((file) => join(packages, file));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], { cwd: project, maxBuffer: 1 << 24 });
}, 600_000);

afterAll(() => {
  try {
    if (sandbox?.pid !== undefined) process.kill(-sandbox.pid, 'SIGKILL');
  } catch {
    // the group is gone: the test stopped it
  }
  rmSync(work, { recursive: true, force: true });
});

describe('npx swarm sandbox, installed from the tarballs in an empty folder', () => {
  it('starts hollow engines and a manager that the docker CLI places containers on, and stops on Ctrl-C', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_PATH: '' };
    delete env['DOCKER_HOST'];
    // detached: npx runs swarm as its child; Ctrl-C in a terminal reaches the whole process group
    sandbox = spawn('npx', ['swarm', 'sandbox', '--nodes', '4', '--label-cycle', 'gpu=true,false', '-H', HOST], {
      cwd: project,
      env,
      detached: true,
    });
    sandbox.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    sandbox.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const exited = new Promise<string>((resolve) => sandbox!.once('exit', (code, signal) => resolve(`${code ?? signal}`)));
    for (let waited = 0; waited < 60_000 && !printed.includes('Ctrl-C'); waited += 200)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(printed).toContain(`export DOCKER_HOST=${HOST}`);
    expect(printed).toContain('4 hollow engines (sandbox-0..sandbox-3, labels gpu=true gpu=false)');
    await docker('run', '-d', '--name', 'tried', '-e', 'constraint:gpu==true', 'busybox', 'true');
    // --label-cycle gpu=true,false: the even nodes carry gpu=true
    expect(await docker('inspect', '-f', '{{.Node.Name}}', 'tried'), printed).toMatch(/^sandbox-[02]$/);
    expect(await docker('ps', '--format', '{{.Names}}')).toMatch(/^sandbox-[02]\/tried$/);
    process.kill(-sandbox.pid!, 'SIGINT');
    // npm ends npx with the signal its child got; swarm itself stops cleanly and takes the listener along
    expect(['0', 'SIGINT'], printed).toContain(await exited);
    await expect(docker('version')).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(() => process.kill(-sandbox!.pid!, 0), 'a process of the group is left').toThrow();
  });
});
