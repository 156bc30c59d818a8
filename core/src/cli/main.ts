import { Command } from 'commander';
import { withGlobalOptions } from './global-options.js';
import { SWARM_VERSION } from '../version.js';
import { joinCommand } from './commands/join.js';
import { listCommand } from './commands/list.js';
import { manageCommand } from './commands/manage.js';
import { pluginsCommand } from './commands/plugins.js';
import { pluginCommand } from './commands/plugin-init.js';
import { scheduleCommand } from './commands/schedule.js';
import { sandboxCommand } from './commands/sandbox.js';

export function createProgram(): Command {
  const program = new Command('swarm')
    .description('A Docker native clustering system')
    .version(`swarm version ${SWARM_VERSION}`, '-v, --version', 'print the version')
    .enablePositionalOptions();
  withGlobalOptions(program)
    .addCommand(withGlobalOptions(manageCommand()))
    .addCommand(withGlobalOptions(joinCommand()))
    .addCommand(withGlobalOptions(listCommand()))
    .addCommand(withGlobalOptions(pluginsCommand()))
    .addCommand(pluginCommand())
    .addCommand(scheduleCommand())
    .addCommand(withGlobalOptions(sandboxCommand()));
  return program;
}

/** Run the CLI; any error is one line on stderr and exit code 1. */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await createProgram().parseAsync([...argv]);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    // With --debug, a plugin's fault at load or in register() shows its stack from the plugin's own first frame.
    const stack = (error as { details?: { stack?: unknown } }).details?.stack;
    if (typeof stack === 'string' && (argv.includes('--debug') || process.env['DEBUG'])) process.stderr.write(`${stack}\n`);
    process.exitCode = 1;
  }
}
