import type { Readable } from 'node:stream';

export interface JsonLinesHandlers {
  /** One parsed line (an event, a progress message). */
  value(value: unknown): void;
  /** A line that is not JSON (a torn or foreign line); skipped when not handled. */
  malformed?(line: string): void;
  /** The stream ended (`error` when it failed); called once. */
  end?(error?: Error): void;
}

/**
 * Reads a stream of one JSON value per line (Docker's `/events`, pull and load progress), calling
 * `value` for each. Blank lines are skipped; the last line counts even without a newline.
 */
export function readJsonLines(stream: Readable, handlers: JsonLinesHandlers): void {
  let pending = '';
  let ended = false;
  const line = (text: string) => {
    const trimmed = text.trim();
    if (trimmed === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      handlers.malformed?.(trimmed);
      return;
    }
    handlers.value(parsed);
  };
  const finish = (error?: Error) => {
    if (ended) return;
    ended = true;
    if (error === undefined) line(pending);
    pending = '';
    handlers.end?.(error);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    if (newline < 0) return;
    let start = 0;
    while (newline >= 0) {
      line(pending.slice(start, newline));
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  });
  stream.on('end', () => finish());
  stream.on('close', () => finish());
  stream.on('error', (error) => finish(error));
}
