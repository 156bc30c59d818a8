import type { LogFn, Logger } from '@swarm/plugin-sdk';

const ignore: LogFn = () => undefined;

/** Used when the host registers no logger (tests that build the driver directly). */
export const quietLogger: Logger = {
  level: 'silent',
  trace: ignore,
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  child: () => quietLogger,
};
