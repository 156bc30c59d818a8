import { ErrorCodes, SwarmError } from '@swarm/plugin-sdk';

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

const SEGMENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/**
 * Seconds in a Go-style duration (`30s`, `1m30s`, `500ms`, `-1s`). A plain number counts as
 * seconds. Throws INVALID_ARGUMENT with Go's wording for anything else.
 */
export function parseDuration(input: string | number): number {
  if (typeof input === 'number') return input;
  const text = input.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(text)) {
    if (Number(text) === 0) return 0;
    throw new SwarmError(ErrorCodes.INVALID_ARGUMENT, `time: missing unit in duration "${input}"`);
  }
  let sign = 1;
  let rest = text;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '') throw new SwarmError(ErrorCodes.INVALID_ARGUMENT, `time: invalid duration "${input}"`);
  let seconds = 0;
  SEGMENT.lastIndex = 0;
  while (SEGMENT.lastIndex < rest.length) {
    const match = SEGMENT.exec(rest);
    if (!match) throw new SwarmError(ErrorCodes.INVALID_ARGUMENT, `time: invalid duration "${input}"`);
    seconds += Number(match[1]) * UNIT_SECONDS[match[2]!]!;
  }
  return sign * seconds;
}

/** `60s`, `1.5s`, `500ms`: a compact rendering for help texts and listings. */
export function formatDuration(seconds: number): string {
  if (seconds !== 0 && Math.abs(seconds) < 1) return `${Math.round(seconds * 1000)}ms`;
  return `${seconds}s`;
}
