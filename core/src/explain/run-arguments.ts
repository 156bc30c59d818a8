import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { Command, CommanderError } from 'commander';
import { collect } from '../util/collect.js';
import { buildContainerConfig, type RunOptions } from './run-options.js';
import { CoreErrors } from '../errors.js';

/** The `docker run` flags `swarm schedule` reads, as commander hands them over. */
export interface RunArguments extends RunOptions {
  name?: string;
}

/**
 * The image, command and `docker run` options `swarm schedule` takes, added to `command`. The web
 * view's explain form parses with the same definition, so both read an input alike.
 */
export function withRunOptions(command: Command): Command {
  return command
    .argument('<image>', 'image to run')
    .argument('[cmd...]', 'command')
    .option('-e, --env <K=V>', 'environment variable (constraint:, affinity: ...)', collect)
    .option('-m, --memory <bytes>', 'memory limit (512m, 1g)')
    .option('-c, --cpu-shares <n>', 'CPU shares (Swarm reads them as CPUs)')
    .option('-p, --publish <spec>', 'publish a port ([ip:][hostPort:]containerPort[/proto])', collect)
    .option('--name <name>', 'container name')
    .option('-l, --label <k=v>', 'label', collect)
    .option('--net <network>', 'network mode')
    .option('--link <name:alias>', 'link', collect)
    .option('--volumes-from <container>', 'volumes from', collect)
    .passThroughOptions();
}

/**
 * The create config `swarm schedule` would send for these arguments (`['-m', '1g', 'nginx']`).
 * Throws INVALID_ARGUMENT with commander's text for unknown or incomplete options.
 */
export function runConfigFromArguments(args: readonly string[]): ContainerConfig {
  let config: ContainerConfig | undefined;
  const command = withRunOptions(new Command('schedule'))
    .helpOption(false)
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .action((image: string, cmd: string[], flags: RunArguments) => {
      config = buildContainerConfig(image, cmd, flags);
    });
  try {
    command.parse([...args], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError)
      throw CoreErrors.cliRunArguments({ reason: error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ') });
    throw error;
  }
  return config!;
}
