import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sampleProcess, type ProcessSample } from './process-meter.js';

const HOLLOW_CLI = fileURLToPath(new URL('../hollow/cli.js', import.meta.url));
// the launcher users run (`swarm`): it also sets the manager's V8 heap growing
const SWARM_BIN = fileURLToPath(new URL('../../../../../core/bin/swarm.js', import.meta.url));

export interface Child {
  process: ChildProcess;
  pid: number;
  output(): string;
  /** Lines printed so far that contain `text` (counted as they arrive: the kept output is only the tail). */
  linesWith(text: string): number;
  /** Writes `line` into the child's log file, in order with its output (nothing without a log). */
  note(line: string): void;
  stop(): Promise<void>;
}

/** Lines the bench counts in the manager's log. */
export const ENGINE_MARKED_UNHEALTHY = 'engine marked unhealthy';
const COUNTED = [ENGINE_MARKED_UNHEALTHY];

/** `log`: a file that gets the child's whole output (the kept output is only its tail). */
function startChild(args: string[], log?: string): Child {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const logStream = log === undefined ? undefined : createWriteStream(log, { flags: 'a' });
  let output = '';
  let partial = '';
  const counts = new Map<string, number>();
  const keep = (chunk: Buffer): void => {
    logStream?.write(chunk);
    const text = chunk.toString();
    output = (output + text).slice(-20_000);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines)
      for (const counted of COUNTED) if (line.includes(counted)) counts.set(counted, (counts.get(counted) ?? 0) + 1);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // 'close', not 'exit': the pipes may still hold output when the process exits
  child.once('close', () => logStream?.end());
  const stop = (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  };
  const note = (line: string): void => {
    if (logStream !== undefined && !logStream.writableEnded) logStream.write(`${line}\n`);
  };
  return { process: child, pid: child.pid ?? 0, output: () => output, linesWith: (text) => counts.get(text) ?? 0, note, stop };
}

/** Hollow engines in their own process, so they do not share the event loop with the client. */
export async function startHollowProcess(
  count: number,
  containersPerEngine: number,
  delay: string | undefined,
  extraArgs: readonly string[] = [],
): Promise<{ child: Child; discovery: string }> {
  const args = [
    HOLLOW_CLI,
    '--count',
    String(count),
    '--containers',
    String(containersPerEngine),
    ...(delay === undefined ? [] : ['--delay', delay]),
    ...extraArgs,
  ];
  const child = startChild(args);
  const discovery = await new Promise<string>((resolve, reject) => {
    let pending = '';
    child.process.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      // only whole lines: at thousands of engines the address list arrives in several chunks
      const line = pending
        .split('\n')
        .slice(0, -1)
        .find((candidate) => candidate.startsWith('nodes://'));
      if (line !== undefined) resolve(line.trim());
    });
    child.process.once('exit', (code) => reject(new Error(`hollow engines exited with ${code}: ${child.output()}`)));
  });
  return { child, discovery };
}

/** Hollow engines split over several processes, so one event loop does not answer for thousands of engines. */
export interface HollowFleet {
  children: Child[];
  /** `nodes://` with every process's addresses. */
  discovery: string;
  stop(): Promise<void>;
  /** Summed RSS and CPU of the hollow processes. */
  sample(): ProcessSample;
  /** Requests answered by all processes since they started, by route (each process prints its counts). */
  snapshotCalls(): Promise<Record<string, number>>;
}

export async function startHollowFleet(
  count: number,
  containersPerEngine: number,
  delay: string | undefined,
  processes: number,
): Promise<HollowFleet> {
  const perProcess = Math.ceil(count / processes);
  const started: { child: Child; discovery: string }[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map(({ child }) => child.stop()));
  };
  try {
    for (let first = 0; first < count; first += perProcess)
      started.push(
        await startHollowProcess(Math.min(perProcess, count - first), containersPerEngine, delay, ['--first-slot', String(first)]),
      );
  } catch (error) {
    await stop();
    throw error;
  }
  const children = started.map(({ child }) => child);
  const addresses = started.map(({ discovery }) => discovery.slice('nodes://'.length));
  const sample = (): ProcessSample => {
    const samples = children.map((child) => sampleProcess(child.pid));
    return {
      rssMb: samples.reduce((sum, one) => sum + one.rssMb, 0),
      cpuSeconds: samples.reduce((sum, one) => sum + one.cpuSeconds, 0),
    };
  };
  const snapshotCalls = async (): Promise<Record<string, number>> => {
    for (const child of children) child.process.kill('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const total: Record<string, number> = {};
    for (const child of children)
      for (const [route, calls] of Object.entries(engineCallSnapshots(child).at(-1) ?? {})) total[route] = (total[route] ?? 0) + calls;
    return total;
  };
  return { children, discovery: `nodes://${addresses.join(',')}`, stop, sample, snapshotCalls };
}

/** `swarm manage` (core/bin/swarm.js, the built CLI) with default filters and the spread strategy; `--cpu-prof` when profiling. */
export function startManager(
  port: number,
  discovery: string,
  profileDir: string | undefined,
  extraArgs: readonly string[],
  managerFlags: readonly string[] = [],
  launcher = SWARM_BIN,
  log?: string,
): Child {
  const nodeFlags = [...managerFlags, ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`])];
  return startChild([...nodeFlags, launcher, 'manage', '-H', `tcp://127.0.0.1:${port}`, ...extraArgs, discovery], log);
}

/** The per-route call counts one hollow process printed (one snapshot per SIGUSR2, and at exit). */
function engineCallSnapshots(child: Child): Record<string, number>[] {
  return [...child.output().matchAll(/^engine calls: (\{.*\})$/gm)].map((match) => JSON.parse(match[1] ?? '{}') as Record<string, number>);
}
