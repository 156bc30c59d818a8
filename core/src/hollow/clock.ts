/** Wall-clock time with sub-millisecond precision: [milliseconds, nanoseconds within the ms]. */
function preciseNow(): [number, number] {
  const now = performance.timeOrigin + performance.now();
  const ms = Math.floor(now);
  return [ms, Math.floor((now - ms) * 1e6)];
}

export interface Instant {
  /** Unix milliseconds. */
  ms: number;
  /** Unix nanoseconds as decimal digits (too large for a JS number). */
  nanos: string;
}

export function now(): Instant {
  const [ms, subMs] = preciseNow();
  return { ms, nanos: `${ms}${String(subMs).padStart(6, '0')}` };
}

export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** RFC 3339 with nanoseconds, as Go prints times (`2026-12-02T10:36:28.134018504Z`). */
export function rfc3339Nano(ms: number): string {
  if (ms === 0) return ZERO_TIME;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000000Z`;
}

/** Go's `units.HumanDuration`, used by the engine's `Status` column ("Up 5 minutes"). */
export function humanDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const hours = Math.round(seconds / 3600);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(hours / 24 / 365)} years`;
}

/** Parses the engine's `since`/`until` query values: unix seconds (optionally `.nanos`) or a date. */
export function parseTimestampMs(value: string | null): number | undefined {
  if (value === null || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}
