import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessStats {
  rssMb: number;
  fds: number;
  /** Descriptors that are sockets (TCP, Unix): a leaked connection shows here. */
  sockets: number;
}

/** RSS and open descriptors of `pid` from /proc (Linux). */
export function processStats(pid: number): ProcessStats | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    const fds = readdirSync(`/proc/${pid}/fd`);
    let sockets = 0;
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
      } catch {
        // closed between the listing and the read
      }
    }
    return { rssMb: rssKb / 1024, fds: fds.length, sockets };
  } catch {
    return undefined;
  }
}
