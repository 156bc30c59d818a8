/** The logger every service gets (pino-compatible subset). */
export interface LogFn {
  (message: string): void;
  (fields: Record<string, unknown>, message?: string): void;
}

export interface Logger {
  readonly level: string;
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

/** Time source, injectable so tests and simulations can control it. */
export interface Clock {
  now(): number;
}
