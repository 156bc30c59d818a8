import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real docker CLI (no DOCKER_API_VERSION: it negotiates with the manager). */
export async function docker(
  host: string,
  args: string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env, DOCKER_BUILDKIT: '0', ...options.env };
  delete env.DOCKER_API_VERSION;
  return new Promise((resolve) => {
    const child = spawn('docker', ['-H', host, ...args], { env, cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.input);
  });
}

/** Like `docker`, but fails the test with the CLI's stderr when the command fails. */
export async function dockerOk(
  host: string,
  args: string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<string> {
  const result = await docker(host, args, options);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

export interface PtySession {
  /** Everything the terminal showed so far. */
  output(): string;
  write(text: string): void;
  /** Resolves when the output matches, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number>;
  kill(): void;
}

/** A command run in a real pseudo-terminal (util-linux `script`), driven from the test. */
export function pty(command: string): PtySession {
  const env: Record<string, string | undefined> = { ...process.env, TERM: 'dumb' };
  delete env.DOCKER_API_VERSION;
  const child = spawn('script', ['-qefc', command, '/dev/null'], { env });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return {
    output: () => output,
    write: (text) => child.stdin.write(text),
    exited,
    kill: () => child.kill('SIGKILL'),
    waitFor: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (match) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(match[0]);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`terminal never showed ${pattern}; it showed:\n${output}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

export interface ApiCluster {
  testbed: Testbed;
  manager: Manager;
  host: string;
  stop(): Promise<void>;
}

/** Real engines `first..first+count-1` behind a real `swarm manage` on `port`. */
export async function startApiCluster(first: number, count: number, port: number, args: string[] = []): Promise<ApiCluster> {
  const testbed = await startTestbed({ first, count });
  try {
    const manager = await startManager({ discovery: testbed.addrs, port, expectNodes: count, args });
    return {
      testbed,
      manager,
      host: manager.host,
      stop: async () => {
        await manager.stop();
        await testbed.stop();
      },
    };
  } catch (error) {
    await testbed.stop();
    throw error;
  }
}

export interface Registry {
  /** host:port to prefix image names with. */
  addr: string;
  stop(): Promise<void>;
}

/** A local image registry (Debian's docker-registry, distribution 2.8) on 127.0.0.1:`port`. */
export async function startRegistry(port: number): Promise<Registry> {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-registry-'));
  mkdirSync(join(dir, 'data'));
  const config = join(dir, 'config.yml');
  writeFileSync(
    config,
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  );
  const child = spawn('docker-registry', ['serve', config], { stdio: 'ignore' });
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/v2/`);
      if (response.ok) break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    addr: `127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function tempDir(prefix: string): Promise<{ path: string; remove(): void }> {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

export { run as execFileAsync };
