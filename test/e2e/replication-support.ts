import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { Manager } from '../harness/manager.js';

const run = promisify(execFile);

/** `docker -H <host> args...` with the real CLI; resolves with trimmed stdout. */
export async function docker(host: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('docker', ['-H', host, ...args], { timeout: 30_000, maxBuffer: 1 << 22 });
  return stdout.trim();
}

/**
 * `docker -H <host> args...` with `input` written to its stdin; stdin closes once output came
 * back (a non-tty `docker attach` whose stdin ends at once stops before the answer arrives, also
 * against a plain engine). Resolves with stdout.
 */
export function dockerWithInput(host: string, input: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['-H', host, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      child.stdin.end();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`docker ${args.join(' ')} exited with ${code}: ${stderr}`));
    });
    child.stdin.write(input);
  });
}

export type Role = 'primary' | 'replica' | 'unknown';

/** The `Role` and `Primary` rows of a manager's /info (`unknown` when it does not answer). */
export async function readRole(port: number): Promise<{ role: Role; primary?: string }> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/info`, { signal: AbortSignal.timeout(2000) });
    const rows = ((await answer.json()) as { SystemStatus?: Array<[string, string]> }).SystemStatus ?? [];
    const role = rows.find(([key]) => key === 'Role')?.[1];
    return { role: role === 'primary' || role === 'replica' ? role : 'unknown', primary: rows.find(([key]) => key === 'Primary')?.[1] };
  } catch {
    return { role: 'unknown' };
  }
}

/** A stretch of polling rounds (epoch ms) in which no manager said it was the primary. */
export interface NoPrimaryGap {
  from: number;
  to: number;
}

/**
 * Asks every manager's /info at once, over and over, and remembers the largest number of
 * managers that called themselves primary in the same round, and when there was none.
 */
export class PrimaryWatch {
  rounds = 0;
  mostPrimaries = 0;
  readonly overlaps: string[] = [];
  readonly gaps: NoPrimaryGap[] = [];
  private gap: NoPrimaryGap | undefined;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly ports: readonly number[]) {
    this.loop = this.poll();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async poll(): Promise<void> {
    while (this.running) {
      const startedAt = Date.now();
      const roles = await Promise.all(this.ports.map((port) => readRole(port)));
      const primaries = this.ports.filter((_, index) => roles[index]!.role === 'primary');
      this.rounds += 1;
      if (primaries.length === 0) {
        if (this.gap === undefined) this.gaps.push((this.gap = { from: startedAt, to: Date.now() }));
        else this.gap.to = Date.now();
      } else this.gap = undefined;
      this.mostPrimaries = Math.max(this.mostPrimaries, primaries.length);
      if (primaries.length > 1) this.overlaps.push(`${new Date().toISOString()}: ${primaries.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The primaries among `ports` right now. */
export async function primariesAmong(ports: readonly number[]): Promise<number[]> {
  const roles = await Promise.all(ports.map((port) => readRole(port)));
  return ports.filter((_, index) => roles[index]!.role === 'primary');
}

/** kill -9 the `swarm manage` listening on `manager.port` (found by its listening socket); resolves with the time of the kill. */
export async function killManager(manager: Manager): Promise<number> {
  const { stdout } = await run('ss', ['-ltnpH', `sport = :${manager.port}`]);
  const pid = /pid=(\d+)/.exec(stdout)?.[1];
  if (!pid) throw new Error(`no process listens on port ${manager.port}:\n${stdout}`);
  process.kill(Number(pid), 'SIGKILL');
  const killedAt = Date.now();
  for (let i = 0; i < 50; i++) {
    if ((await readRole(manager.port)).role === 'unknown') return killedAt;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`swarm manage on port ${manager.port} still answers after kill -9`);
}
