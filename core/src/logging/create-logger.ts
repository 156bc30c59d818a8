import type { Logger } from '@swarm/plugin-sdk';
import pino from 'pino';

export interface LoggerOptions {
  readonly level: string;
  /** Human-readable lines instead of JSON (default: when stderr is a terminal). */
  readonly pretty?: boolean;
  /** File descriptor to write to (default 2, stderr, as Swarm classic). */
  readonly fd?: number;
}

/** A pino logger: JSON lines, or pino-pretty's format on a terminal. */
export async function createLogger(options: LoggerOptions): Promise<Logger> {
  const fd = options.fd ?? 2;
  const pretty = options.pretty ?? (fd === 2 && process.stderr.isTTY === true);
  const base = { level: options.level, base: undefined };
  if (pretty) {
    // Loaded only for terminals: it is the slowest part of start-up otherwise.
    const { default: prettyStream } = await import('pino-pretty');
    return pino(base, prettyStream({ destination: fd, sync: true, ignore: 'pid,hostname' })) as unknown as Logger;
  }
  return pino(base, pino.destination({ fd, sync: true })) as unknown as Logger;
}
