import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthyNodeCount } from '../harness/manager.js';

// `swarm sandbox`, the built CLI, with the real docker CLI against it: no engine, no testbed.
// Port 26260 belongs to this file.
const run = promisify(execFile);
const SWARM = fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url));
const PORT = 26260;
const HOST = `tcp://127.0.0.1:${PORT}`;
// an empty folder: no config file to find, as for someone trying swarm for the first time
const folder = mkdtempSync(join(tmpdir(), 'swarm-sandbox-'));
let sandbox: ChildProcess;
let stdout = '';
let output = '';

const docker = async (...args: string[]): Promise<string> => (await run('docker', ['-H', HOST, ...args])).stdout.trim();

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; sandbox printed:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  sandbox = spawn(process.execPath, [SWARM, 'sandbox', '--nodes', '4', '--label', 'gpu=true', '-H', HOST], { cwd: folder });
  sandbox.stdout!.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), (output += chunk.toString())));
  sandbox.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(() => stdout.includes('Ctrl-C'), 60_000);
}, 90_000);

afterAll(() => {
  if (sandbox.exitCode === null) sandbox.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

describe('swarm sandbox --nodes 4 --label gpu=true', () => {
  it('prints how to point docker at it', () => {
    expect(stdout).toContain(`export DOCKER_HOST=${HOST}`);
    expect(stdout).toContain('4 hollow engines (sandbox-0..sandbox-3, labels gpu=true)');
    expect(stdout).toContain('docker run -d -e constraint:gpu==true busybox true');
  });

  it('docker info shows 4 healthy nodes, each labelled gpu=true', async () => {
    let rows: Array<[string, string]> = [];
    await until(async () => {
      rows = JSON.parse(await docker('info', '--format', '{{json .SystemStatus}}')) as Array<[string, string]>;
      return healthyNodeCount({ SystemStatus: rows }) === 4;
    }, 30_000);
    expect(rows).toContainEqual(['Nodes', '4']);
    const labels = rows.filter(([key]) => key.trim() === '└ Labels').map(([, value]) => value);
    expect(labels).toHaveLength(4);
    for (const value of labels) expect(value.split(', ')).toContain('gpu=true');
  });

  it('docker run -e constraint:gpu==true places a container that docker ps lists; gpu==false is refused', async () => {
    const id = (await docker('run', '-d', '-e', 'constraint:gpu==true', 'busybox', 'true')).split('\n').pop()!;
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    const listed = await docker('ps', '--no-trunc', '--format', '{{.ID}} {{.Names}}');
    expect(listed).toMatch(new RegExp(`^${id} sandbox-[0-3]/\\S+$`, 'm'));
    const refused = await docker('run', '-d', '-e', 'constraint:gpu==false', 'busybox', 'true').then(
      () => '',
      (error: { stderr: string }) => error.stderr,
    );
    expect(refused).toContain('0/4 nodes are available: 4 constraint gpu==false.');
  });

  it('stops cleanly on Ctrl-C (SIGINT): exit code 0, the listener gone', async () => {
    const exited = new Promise<number | null>((resolve) => sandbox.once('exit', (code) => resolve(code)));
    sandbox.kill('SIGINT');
    expect(await exited, output).toBe(0);
    await expect(docker('version')).rejects.toThrow();
  });

  it('a bad flag is one line on stderr and exit code 1', async () => {
    const failed = await run(process.execPath, [SWARM, 'sandbox', '--nodes', 'four'], { cwd: folder }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('invalid value "four" for flag --nodes\n');
  });
});
