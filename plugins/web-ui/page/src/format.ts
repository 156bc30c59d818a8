const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1073741824 → `1 GiB`, 1610612736 → `1.5 GiB`. */
export function bytes(value: number): string {
  let unit = 0;
  let scaled = value;
  while (scaled >= 1024 && unit < UNITS.length - 1) {
    scaled /= 1024;
    unit++;
  }
  const rounded = scaled >= 100 || unit === 0 ? Math.round(scaled) : Math.round(scaled * 10) / 10;
  return `${rounded} ${UNITS[unit]}`;
}

export function cpus(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** A share 0..1 of `used` in `total` (0 when total is 0). */
export function share(used: number, total: number): number {
  return total > 0 ? Math.min(1, used / total) : 0;
}

export function clock(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour12: false });
}

export function dateTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { hour12: false });
}

export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86400)} d ${Math.floor((seconds % 86400) / 3600)} h`;
}

/** Natural order: node2 before node10. */
export const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' }).compare;

export const STATUS_TEXT: Readonly<Record<string, string>> = {
  healthy: 'Healthy',
  unhealthy: 'Unhealthy',
  pending: 'Pending',
  disconnected: 'Disconnected',
};
