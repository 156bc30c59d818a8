import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawn, type ChildProcess } from 'node:child_process';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../core/dist/cli/bin.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real docker CLI against a manager. */
export async function docker(port: number, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run('docker', ['-H', `tcp://127.0.0.1:${port}`, ...args], { timeout: 60_000 });
    return { code: 0, stdout: stdout.trim(), stderr: stderr.trim() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: (failed.stdout ?? '').trim(), stderr: (failed.stderr ?? '').trim() };
  }
}

export function systemStatus(port: number): Promise<Array<[string, string]>> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/info', timeout: 2000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          resolve((JSON.parse(Buffer.concat(chunks).toString()) as { SystemStatus?: Array<[string, string]> }).SystemStatus ?? []);
        } catch {
          resolve([]);
        }
      });
    });
    req.on('error', () => resolve([]));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

export const row = (rows: Array<[string, string]>, key: string): string | undefined => rows.find(([name]) => name.trim() === key)?.[1];

export async function waitUntil(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

export interface MesosManager {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/** `swarm manage -c mesos <discovery>` as a child process, waiting until /info shows `minOffers` offers. */
export async function startMesosManager(port: number, discovery: string, clusterOpts: string[], minOffers: number): Promise<MesosManager> {
  const args = [BIN, 'manage', '-H', `tcp://127.0.0.1:${port}`, '-c', 'mesos', ...clusterOpts.flatMap((opt) => ['--cluster-opt', opt]), discovery];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  try {
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`swarm manage exited with ${child.exitCode}:\n${output}`);
      return Number(row(await systemStatus(port), 'Offers') ?? 0) >= minOffers;
    }, `swarm manage on ${port} with ${minOffers} offers`, 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return { port, output: () => output, stop };
}
