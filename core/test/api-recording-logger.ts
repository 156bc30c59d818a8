import type { LogFn, Logger } from '@swarm/plugin-sdk';

export interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string | undefined;
}

/** A Logger that keeps what it is given, so tests can check the per-request debug line. */
export function recordingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const at =
    (level: string): LogFn =>
    (first: string | Record<string, unknown>, message?: string) => {
      if (typeof first === 'string') lines.push({ level, fields: {}, message: first });
      else lines.push({ level, fields: first, message });
    };
  const logger = {
    level: 'debug',
    lines,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}
