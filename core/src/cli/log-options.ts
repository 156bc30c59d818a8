import { Option, type Command } from 'commander';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'panic'];

/** `--debug` and `--log-level`, accepted before the command (global) and after it. */
export function withLogOptions(command: Command, short = true): Command {
  return command
    .option('--debug', 'debug mode [$DEBUG]')
    .addOption(new Option(`${short ? '-l, ' : ''}--log-level <level>`, 'Log level (options: debug, info, warn, error, fatal, panic)').choices(LEVELS));
}
