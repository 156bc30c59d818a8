import { SdkErrors } from '../errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SEGMENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/**
 * Milliseconds in a Go duration (`30s`, `1m30s`, `250ms`, `-1s`), as Swarm classic's flags and
 * options read them (`time.ParseDuration`): `0` is the only number without a unit. Throws Go's
 * wording (INVALID_ARGUMENT) otherwise.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(trimmed)) {
    if (Number(trimmed) === 0) return 0;
    throw SdkErrors.durationMissingUnit({ text });
  }
  const sign = trimmed.startsWith('-') ? -1 : 1;
  const body = /^[-+]/.test(trimmed) ? trimmed.slice(1) : trimmed;
  if (body === '') throw SdkErrors.durationInvalid({ text });
  let total = 0;
  SEGMENT.lastIndex = 0;
  while (SEGMENT.lastIndex < body.length) {
    const match = SEGMENT.exec(body);
    if (!match) throw SdkErrors.durationInvalid({ text });
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
  }
  return sign * total;
}

/** Milliseconds as Go prints a time.Duration: `5s`, `1m30s`, `1.5s`, `200ms`, `1h0m0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = `${Number(((ms % 60_000) / 1000).toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}
