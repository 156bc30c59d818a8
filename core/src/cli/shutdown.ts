import type { Logger } from '@swarm/plugin-sdk';

/** Stop cleanly on SIGINT/SIGTERM, once; a second signal exits at once. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ signal }, 'Shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: (error as Error).message }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
