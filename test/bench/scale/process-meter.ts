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

/** Follows a process's peak RSS while a benchmark runs. */
export class PeakRss {
  peakMb = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number, intervalMs = 250) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.sample();
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    try {
      this.peakMb = Math.max(this.peakMb, sampleProcess(this.pid).rssMb);
    } catch {
      // the process has exited
    }
  }
}
