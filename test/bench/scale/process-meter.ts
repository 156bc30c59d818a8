import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

export interface ProcessSample {
  rssMb: number;
  /** User + system CPU seconds since the process started. */
  cpuSeconds: number;
}

/** Reads a process's RSS and CPU time from /proc (Linux). */
export function sampleProcess(pid: number): ProcessSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  // fields after the parenthesised command name; utime and stime are fields 14 and 15
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rssMb: rssKb / 1024, cpuSeconds: ticks / TICKS_PER_SECOND };
}

/** Follows a process's peak RSS while a benchmark runs, overall and per phase. */
export class PeakRss {
  peakMb = 0;
  readonly byPhase: Record<string, number> = {};
  private current: string | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 250,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.sample();
  }

  /** Peaks from now on count for `name` too. */
  phase(name: string): void {
    this.sample();
    this.current = name;
    this.sample();
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
    this.current = undefined;
  }

  private sample(): void {
    try {
      const rssMb = sampleProcess(this.pid).rssMb;
      this.peakMb = Math.max(this.peakMb, rssMb);
      if (this.current !== undefined) this.byPhase[this.current] = Math.max(this.byPhase[this.current] ?? 0, rssMb);
    } catch {
      // the process has exited
    }
  }
}
