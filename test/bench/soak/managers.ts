import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readRole, type Role } from '../../e2e/replication-support.js';

// The launcher users run (`swarm`), with the V8 settings it gives the manager.
const BIN = fileURLToPath(new URL('../../../../../../core/bin/swarm.js', import.meta.url));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface ManagerSpec {
  name: 'A' | 'B';
  port: number;
  /** The V8 inspector's port: the sampler reads heap and event-loop delay through it. */
  inspectPort: number;
  discovery: string;
  logFile: string;
}

/**
 * One `swarm manage --replication` process, started as users start it (the launcher, no test
 * flags) plus `--inspect` on loopback, which the sampler uses; its output goes to a log file, not
 * into the soak's memory.
 */
export class ManagedManager {
  private child: ChildProcess | undefined;
  private readonly output: WriteStream;
  starts = 0;

  constructor(readonly spec: ManagerSpec) {
    this.output = createWriteStream(spec.logFile, { flags: 'a' });
  }

  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  start(): void {
    const { port, inspectPort, discovery } = this.spec;
    const args = [
      `--inspect=127.0.0.1:${inspectPort}`,
      BIN,
      'manage',
      '-H',
      `tcp://127.0.0.1:${port}`,
      '--replication',
      '--advertise',
      `127.0.0.1:${port}`,
      // The default TTL (20 s): with 5 s, stalls of A's event loop on this loaded machine made it
      // miss its lease renewals and step down again and again after taking over (results/soak.md).
      '--heartbeat',
      '5s',
      discovery,
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.output.write(`# soak: start ${this.starts + 1} at ${new Date().toISOString()}\n`);
    child.stdout!.pipe(this.output, { end: false });
    child.stderr!.pipe(this.output, { end: false });
    this.child = child;
    this.starts++;
  }

  /** SIGKILL (a crash) or SIGTERM (a clean handover); resolves once the process is gone. */
  stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill(signal);
    });
  }

  role(): Promise<{ role: Role; primary?: string }> {
    return readRole(this.spec.port);
  }

  /** Waits until /info says `want` (and, for a replica, names a primary); throws after `timeoutMs`. */
  async waitForRole(want: Role, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.pid === undefined) throw new Error(`manager ${this.spec.name} exited (see ${this.spec.logFile})`);
      const { role, primary } = await this.role();
      if (role === want && (want !== 'replica' || (primary !== undefined && primary !== ''))) return;
      await sleep(200);
    }
    throw new Error(`manager ${this.spec.name} did not become ${want} within ${timeoutMs} ms`);
  }

  close(): void {
    this.output.end();
  }
}
