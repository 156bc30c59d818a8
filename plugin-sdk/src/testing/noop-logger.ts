import type { Logger } from '../logger.js';

const ignore = (): void => undefined;

/** A logger that drops everything: what providers built by `pluginProviders` get unless a test gives one. */
export const noopLogger: Logger = {
  level: 'silent',
  trace: ignore,
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  child: () => noopLogger,
};
