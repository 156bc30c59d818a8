import { Option, type Command } from 'commander';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'panic'];

/** `--config`, `--debug` and `--log-level`, accepted before the command (global) and after it. */
export function withGlobalOptions(command: Command): Command {
  return command
    .option('--config <path>', 'config file (default: swarm.config.* / .swarmrc* / package.json "swarm", searched upwards)')
    .option('--debug', 'debug mode [$DEBUG]')
    .addOption(new Option('-l, --log-level <level>', 'Log level (options: debug, info, warn, error, fatal, panic)').choices(LEVELS));
}
