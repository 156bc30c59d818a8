import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../core/dist/cli/bin.js', import.meta.url));

export interface Manager {
  /** `tcp://127.0.0.1:<port>` for `docker -H`. */
  host: string;
  port: number;
  pid: number;
  /** Everything the manager printed (stdout and stderr), for failure messages. */
  output(): string;
  /** Whether the process is still up (a crash shows here even when the test never asks it anything). */
  running(): boolean;
  /** The exit code once the process has ended (null while it runs, or when a signal ended it). */
  exitCode(): number | null;
  stop(): Promise<void>;
}

export interface ManagerOptions {
  /** Discovery argument (`127.0.0.31:2375,127.0.0.32:2375`, `nodes://...`, ...). */
  discovery: string;
  port: number;
  /** Healthy nodes to wait for in /info before returning. */
  expectNodes: number;
  /** More `swarm manage` flags (`--strategy`, `--tlsverify`, ...). */
  args?: string[];
  /** When the listener needs TLS, a function that asks /info over it; plain HTTP otherwise. */
  readInfo?: () => Promise<InfoAnswer | undefined>;
  timeoutMs?: number;
  /** The manager's open-files limit (`ulimit -n`), as an operator's shell or unit file sets it. */
  openFiles?: number;
  /** Another build's CLI (e.g. earlierBuild()'s launcher); this checkout's by default. */
  bin?: string;
}

export interface InfoAnswer {
  SystemStatus?: Array<[string, string]> | null;
}

function plainInfo(port: number): Promise<InfoAnswer | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/info', timeout: 2000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString()) as InfoAnswer);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Healthy nodes according to Swarm classic's `└ Status` rows. */
export function healthyNodeCount(info: InfoAnswer | undefined): number {
  return (info?.SystemStatus ?? []).filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy').length;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Start `swarm manage` (the built CLI) as a child process and wait until /info reports the
 * expected number of healthy nodes.
 */
export async function startManager(options: ManagerOptions): Promise<Manager> {
  const args = [options.bin ?? BIN, 'manage', '-H', `tcp://127.0.0.1:${options.port}`, ...(options.args ?? []), options.discovery];
  const [command, commandArgs] =
    options.openFiles === undefined
      ? [process.execPath, args]
      : ['prlimit', [`--nofile=${options.openFiles}:${options.openFiles}`, process.execPath, ...args]];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const manager: Manager = {
    host: `tcp://127.0.0.1:${options.port}`,
    port: options.port,
    pid: child.pid ?? 0,
    output: () => output,
    running: () => child.exitCode === null && child.signalCode === null,
    exitCode: () => child.exitCode,
    stop: () => stopChild(child),
  };
  const readInfo = options.readInfo ?? (() => plainInfo(options.port));
  // engines answer their first calls slowly on a loaded 2-core machine (three test files at once)
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let healthy = 0;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`swarm manage exited with ${child.exitCode}:\n${output}`);
    healthy = healthyNodeCount(await readInfo());
    if (healthy >= options.expectNodes) return manager;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await manager.stop();
  throw new Error(`swarm manage saw ${healthy} of ${options.expectNodes} healthy nodes in time:\n${output}`);
}
