import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startEtcd, startZooKeeper, type Service } from '../harness/services.js';

const run = promisify(execFile);
const SWARM_BIN = fileURLToPath(new URL('../../core/dist/cli/bin.js', import.meta.url));

export type StoreScheme = 'zk' | 'etcd';

export const startStore = (scheme: StoreScheme, port: number): Promise<Service> =>
  scheme === 'zk' ? startZooKeeper(port) : startEtcd(port);

/** `swarm list --timeout 5s [args...] <discovery>`: the printed engines, sorted. */
export async function swarmList(discovery: string, args: readonly string[] = []): Promise<string[]> {
  const { stdout } = await run(process.execPath, [SWARM_BIN, 'list', '--timeout', '5s', ...args, discovery], { timeout: 20_000 });
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

export interface JoinProcess {
  output(): string;
  /** kill -9: the engine is not deregistered, its entry must expire by itself. */
  kill(): Promise<void>;
}

/** `swarm join --advertise <addr> --heartbeat 1s --ttl <ttl> [args...] <discovery>` in the background. */
export function startJoin(discovery: string, advertise: string, ttl = '3s', args: readonly string[] = []): JoinProcess {
  const child = spawn(
    process.execPath,
    [SWARM_BIN, 'join', '--advertise', advertise, '--heartbeat', '1s', '--ttl', ttl, ...args, discovery],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    output: () => output,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** Polls `probe` until it returns true; fails with `what` after `timeoutMs`. */
export async function eventually(probe: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
