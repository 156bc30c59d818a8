import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';

const run = promisify(execFile);

/** `docker -H host args...` with the real CLI; resolves with trimmed stdout. */
export async function docker(host: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('docker', ['-H', host, ...args], { maxBuffer: 1 << 22 });
  return stdout.trim();
}

/** Run a docker command that must fail; resolves with what the CLI printed on stderr. */
export async function dockerFails(host: string, ...args: string[]): Promise<string> {
  try {
    await run('docker', ['-H', host, ...args]);
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  throw new Error(`docker ${args.join(' ')} succeeded`);
}

/** The Swarm classic error text the CLI shows, without its `docker: Error response from daemon: ` prefix and help hint. */
export function daemonError(stderr: string): string {
  return stderr
    .replace(/^docker: Error response from daemon: /, '')
    .replace(/\n+Run 'docker run --help' for more information\s*$/, '')
    .trim();
}

/** `docker run -d [flags] busybox:local sleep 300`; resolves with the node it landed on. */
export async function runOn(host: string, ...flags: string[]): Promise<string> {
  const id = await docker(host, 'run', '-d', ...flags, 'busybox:local', 'sleep', '300');
  return nodeOf(host, id);
}

/** `docker create [flags] busybox:local sleep 300` (scheduled, not started); resolves with its node. */
export async function createOn(host: string, ...flags: string[]): Promise<string> {
  const id = await docker(host, 'create', ...flags, 'busybox:local', 'sleep', '300');
  return nodeOf(host, id);
}

/** The node a container runs on, from Swarm's `node/name` in `docker ps`. */
export async function nodeOf(host: string, id: string): Promise<string> {
  const names = await docker(host, 'ps', '-a', '--no-trunc', '--filter', `id=${id}`, '--format', '{{.Names}}');
  return names.split('/')[0]!;
}

/** How many containers each node holds, by `docker ps -a` names. */
export async function countsByNode(host: string): Promise<Record<string, number>> {
  const names = await docker(host, 'ps', '-a', '--format', '{{.Names}}');
  const counts: Record<string, number> = {};
  for (const name of names.split('\n').filter(Boolean)) {
    const node = name.split('/')[0]!;
    counts[node] = (counts[node] ?? 0) + 1;
  }
  return counts;
}

export async function removeAll(host: string): Promise<void> {
  const ids = (await docker(host, 'ps', '-aq')).split('\n').filter(Boolean);
  if (ids.length > 0) await docker(host, 'rm', '-f', ...ids);
}

export interface EngineSpec {
  /** Engine index: node<index> on 127.0.0.<index+1>. */
  readonly index: number;
  readonly labels?: string[];
}

export interface SchedulingCluster {
  readonly host: string;
  readonly manager: Manager;
  stop(): Promise<void>;
}

/** Real engines (each with its own labels) behind `swarm manage` on `port`. */
export async function startSchedulingCluster(
  engines: readonly EngineSpec[],
  port: number,
  args: string[] = [],
): Promise<SchedulingCluster> {
  const beds: Testbed[] = await Promise.all(
    engines.map((engine) => startTestbed({ first: engine.index, count: 1, labels: engine.labels ?? [] })),
  );
  try {
    const discovery = engines.map((engine) => `127.0.0.${engine.index + 1}:2375`).join(',');
    const manager = await startManager({ discovery, port, expectNodes: engines.length, args });
    return {
      host: manager.host,
      manager,
      stop: async () => {
        await manager.stop();
        await Promise.all(beds.map((bed) => bed.stop()));
      },
    };
  } catch (error) {
    await Promise.all(beds.map((bed) => bed.stop()));
    throw error;
  }
}

/** Poll `check` every 250 ms until it holds, or fail naming `what`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
