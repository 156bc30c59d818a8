import { Option, type Command } from 'commander';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'panic'];

/** `--config`, `--debug`, `--log-level` and `--log-format`, accepted before the command (global) and after it. */
export function withGlobalOptions(command: Command): Command {
  return command
    .option('--config <path>', 'config file (default: swarm.config.* / .swarmrc* / package.json "swarm", searched upwards)')
    .option('--debug', 'debug mode [$DEBUG]')
    .addOption(new Option('-l, --log-level <level>', 'Log level (options: debug, info, warn, error, fatal, panic)').choices(LEVELS))
    .addOption(
      new Option(
        '--log-format <format>',
        'json lines, or text as Swarm classic wrote it (level=info msg=...; journald priorities under systemd) [$SWARM_LOG_FORMAT] (default: json, or a readable form on a terminal)',
      )
        .choices(['text', 'json'])
        .env('SWARM_LOG_FORMAT'),
    );
}
