export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of latencies in ms. */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
  return { count: sorted.length, p50: at(50), p90: at(90), p99: at(99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

export const ms = (value: number): string => (Number.isNaN(value) ? '-' : value < 10 ? value.toFixed(1) : String(Math.round(value)));

export const formatPercentiles = (value: Percentiles): string => `${ms(value.p50)} / ${ms(value.p90)} / ${ms(value.p99)}`;
