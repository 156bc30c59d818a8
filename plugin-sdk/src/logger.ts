/** The logger every service gets (pino-compatible subset): `logger.info(message)` or `logger.info(fields, message)`. */
export interface Logger {
  readonly level: string;
  trace(message: string): void;
  trace(fields: Record<string, unknown>, message?: string): void;
  debug(message: string): void;
  debug(fields: Record<string, unknown>, message?: string): void;
  info(message: string): void;
  info(fields: Record<string, unknown>, message?: string): void;
  warn(message: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(message: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** Time source, injectable so tests and simulations can control it. */
export interface Clock {
  now(): number;
}
