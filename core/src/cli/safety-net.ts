import type { Logger } from '@swarm/plugin-sdk';

/**
 * The manager's last guard: a fault that escapes every handler (a background monitor, a plugin's
 * timer, a promise nobody awaited) is logged with its stack and the manager keeps serving, since
 * exiting would drop every client and every stream for one bad path. `blame` names the plugin
 * whose code the stack passes through, when there is one.
 */
export function installSafetyNet(logger: Logger, blame: (stack: string | undefined) => string | undefined = () => undefined): void {
  const report = (fault: unknown, what: string, fields: Record<string, unknown>) => {
    const plugin = blame(fault instanceof Error ? fault.stack : undefined);
    if (plugin)
      logger.error(
        { err: fault, plugin, ...fields },
        `${what} in plugin ${plugin} (swarm keeps running; report it to the plugin's authors)`,
      );
    else logger.error({ err: fault, ...fields }, `${what} (swarm keeps running; please report this with the stack above)`);
  };
  process.on('unhandledRejection', (reason: unknown) => report(reason, 'unhandled rejection', {}));
  process.on('uncaughtException', (error: Error, origin: string) => report(error, 'uncaught exception', { origin }));
}
