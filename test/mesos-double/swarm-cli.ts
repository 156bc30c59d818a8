import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startManager, type Manager } from '../harness/manager.js';

const exec = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real docker CLI against a manager. */
export function docker(port: number, ...args: string[]): Promise<CliResult> {
  return dockerCli(['-H', `tcp://127.0.0.1:${port}`, ...args]);
}

/** Run the real docker CLI with these arguments (its own -H and TLS flags included); never throws. */
export async function dockerCli(args: readonly string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await exec('docker', [...args], { timeout: 60_000 });
    return { code: 0, stdout: stdout.trim(), stderr: stderr.trim() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: (failed.stdout ?? '').trim(),
      stderr: (failed.stderr ?? '').trim(),
    };
  }
}

/** Swarm classic's `docker info` rows, as the docker CLI reads them (`cliFlags`: e.g. --tlsverify and its files). */
export async function systemStatus(port: number, cliFlags: readonly string[] = []): Promise<Array<[string, string]>> {
  const info = await docker(port, ...cliFlags, 'info', '--format', '{{json .SystemStatus}}');
  try {
    return (JSON.parse(info.stdout) as Array<[string, string]> | null) ?? [];
  } catch {
    return [];
  }
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

export interface MesosManagerExtras {
  /** More `swarm manage` flags (`--tlsverify`, ...). */
  args?: string[];
  /** docker CLI flags needed to talk to that manager (its TLS files). */
  cliFlags?: string[];
}

/** `swarm manage -c mesos <discovery>` (the built CLI), waiting until `docker info` shows `minOffers` offers. */
export async function startMesosManager(
  port: number,
  discovery: string,
  clusterOpts: string[],
  minOffers: number,
  extras: MesosManagerExtras = {},
): Promise<Manager> {
  const args = ['-c', 'mesos', ...clusterOpts.flatMap((opt) => ['--cluster-opt', opt]), ...(extras.args ?? [])];
  // Mesos has no `└ Status` rows: wait for offers instead of healthy nodes.
  const manager = await startManager({ discovery, port, expectNodes: 0, args });
  try {
    await waitUntil(
      async () => {
        const offers = row(await systemStatus(port, extras.cliFlags), 'Offers');
        return offers !== undefined && Number(offers) >= minOffers;
      },
      `swarm manage on ${port} with ${minOffers} offers`,
      30_000,
    );
  } catch (error) {
    await manager.stop();
    throw new Error(`${(error as Error).message}\n${manager.output()}`, { cause: error });
  }
  return manager;
}
