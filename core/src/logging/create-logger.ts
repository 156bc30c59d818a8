import { fstatSync } from 'node:fs';
import type { Logger } from '@swarm/plugin-sdk';
import pino from 'pino';
import { textLine, writesToJournal } from './text-format.js';

/** How log lines are written: pino's JSON lines, or Swarm classic's text (`level=info msg=...`). */
export type LogFormat = 'json' | 'text';

export interface LoggerOptions {
  readonly level: string;
  /** Human-readable lines instead of JSON (default: when stderr is a terminal and no format is asked for). */
  readonly pretty?: boolean;
  /** `--log-format`: overrides `pretty` when given. */
  readonly format?: LogFormat;
  /** File descriptor to write to (default 2, stderr, as Swarm classic). */
  readonly fd?: number;
}

function journaled(fd: number): boolean {
  try {
    return writesToJournal(fstatSync(fd), process.env['JOURNAL_STREAM']);
  } catch {
    return false;
  }
}

/** A pino logger: JSON lines, text lines (journald priorities included when the output is the journal), or pino-pretty's format on a terminal. */
export async function createLogger(options: LoggerOptions): Promise<Logger> {
  const fd = options.fd ?? 2;
  const base = { level: options.level, base: undefined };
  if (options.format === 'text') {
    const destination = pino.destination({ fd, sync: true });
    const journald = journaled(fd);
    const stream = {
      write(line: string): void {
        destination.write(textLine(JSON.parse(line) as Record<string, unknown>, journald));
      },
    };
    return pino(base, stream) as unknown as Logger;
  }
  const pretty = options.format === undefined && (options.pretty ?? (fd === 2 && process.stderr.isTTY === true));
  if (pretty) {
    // Loaded only for terminals: it is the slowest part of start-up otherwise.
    const { default: prettyStream } = await import('pino-pretty');
    return pino(base, prettyStream({ destination: fd, sync: true, ignore: 'pid,hostname' })) as unknown as Logger;
  }
  return pino(base, pino.destination({ fd, sync: true })) as unknown as Logger;
}
