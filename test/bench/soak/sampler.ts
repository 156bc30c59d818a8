import type { Inspector } from './inspector.js';
import type { ManagedManager } from './managers.js';
import { processStats } from './process-stats.js';

const PROC_INTERVAL_MS = 2000;

export interface Sample {
  /** Seconds since the load started. */
  t: number;
  rssMb?: number;
  fds?: number;
  sockets?: number;
  /** Heap used right after a forced full collection (every other sample). */
  heapAfterGcMb?: number;
  loopP50?: number;
  loopP99?: number;
  loopMax?: number;
  /** B's, for reference: B is restarted by the failovers, so its figures are not judged. */
  bRssMb?: number;
  bFds?: number;
}

/**
 * A's process figures from /proc every 2 s (RSS swings by a third between two samples under this
 * load: a window's median needs many), its heap and event loop through the inspector every
 * `intervalMs`.
 */
export class Sampler {
  readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private procTimer: NodeJS.Timeout | undefined;
  private busy = false;
  private count = 0;

  private readonly a: ManagedManager;
  private readonly b: ManagedManager;
  private readonly inspector: Inspector;
  private readonly startedAt: number;
  private readonly intervalMs: number;

  constructor(options: { a: ManagedManager; b: ManagedManager; inspector: Inspector; startedAt: number; intervalMs: number }) {
    ({ a: this.a, b: this.b, inspector: this.inspector, startedAt: this.startedAt, intervalMs: this.intervalMs } = options);
  }

  start(): void {
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.procTimer = setInterval(() => this.samples.push(this.procSample()), PROC_INTERVAL_MS);
  }

  private procSample(): Sample {
    const sample: Sample = { t: Math.round((Date.now() - this.startedAt) / 1000) };
    const stats = this.a.pid === undefined ? undefined : processStats(this.a.pid);
    if (stats) Object.assign(sample, { rssMb: stats.rssMb, fds: stats.fds, sockets: stats.sockets });
    const bStats = this.b.pid === undefined ? undefined : processStats(this.b.pid);
    if (bStats) Object.assign(sample, { bRssMb: bStats.rssMb, bFds: bStats.fds });
    return sample;
  }

  async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const sample = this.procSample();
      const delay = await this.inspector.loopDelay();
      Object.assign(sample, { loopP50: delay.p50, loopP99: delay.p99, loopMax: delay.max });
      // A forced full collection every other sample: what the heap keeps, without collecting so
      // often that the collections themselves become the manager's load.
      if (this.count++ % 2 === 0) sample.heapAfterGcMb = (await this.inspector.heapAfterGc()) / 2 ** 20;
      this.samples.push(sample);
    } catch (error) {
      console.error(`soak: a sample failed: ${String(error)}`);
    } finally {
      this.busy = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    clearInterval(this.procTimer);
  }
}
