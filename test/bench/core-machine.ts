import { cpus, loadavg } from 'node:os';

/** The machine line every core benchmark result carries. */
export function machineDescription(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${cpus().length} × ${cpu}, Node ${process.version}, load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ')}, ${new Date().toISOString()}`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const ms = (value: number): string => `${value.toFixed(1)} ms`;
