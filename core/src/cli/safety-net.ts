import type { Logger } from '@swarm/plugin-sdk';

/**
 * The manager's last guard: a fault that escapes every handler (a background monitor, a plugin's
 * timer, a promise nobody awaited) is logged with its stack and the manager keeps serving, since
 * exiting would drop every client and every stream for one bad path.
 */
export function installSafetyNet(logger: Logger): void {
  process.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled rejection (swarm keeps running; please report this with the stack above)');
  });
  process.on('uncaughtException', (error: Error, origin: string) => {
    logger.error({ err: error, origin }, 'uncaught exception (swarm keeps running; please report this with the stack above)');
  });
}
