const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parse a Go duration (`5s`, `1m30s`, `250ms`); a bare number means seconds. Returns ms. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const negative = trimmed.startsWith('-');
  const body = negative ? trimmed.slice(1) : trimmed;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let position = 0;
  while (position < body.length) {
    part.lastIndex = position;
    const match = part.exec(body);
    if (!match) throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    position = part.lastIndex;
  }
  if (body.length === 0) throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
  return negative ? -total : total;
}

/** Format ms as Go prints a time.Duration (`5s`, `1m0s`, `500ms`, `1h0m0s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const secondsText = `${Number(seconds.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}
