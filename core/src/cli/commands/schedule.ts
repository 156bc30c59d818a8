import { ErrorCodes, SwarmError, type PlacementExplanation } from '@swarm/plugin-sdk';
import { Command, Option } from 'commander';
import { formatExplanation } from '../explain-table.js';
import { postJson } from '../http-post.js';
import { collect } from '../key-values.js';
import { buildContainerConfig, type RunOptions } from '../run-options.js';

interface ScheduleFlags extends RunOptions {
  explain?: boolean;
  host: string;
  name?: string;
  json?: boolean;
}

async function schedule(image: string, cmd: string[], flags: ScheduleFlags): Promise<void> {
  if (!flags.explain) throw new SwarmError(ErrorCodes.INVALID_ARGUMENT, 'swarm schedule only explains placements for now: add --explain');
  const config = buildContainerConfig(image, cmd, flags);
  const query = flags.name ? `?name=${encodeURIComponent(flags.name)}` : '';
  const explanation = (await postJson(flags.host, `/_swarm/v1/explain${query}`, config)) as PlacementExplanation;
  process.stdout.write(flags.json ? `${JSON.stringify(explanation, null, 2)}\n` : formatExplanation(explanation));
}

export function scheduleCommand(): Command {
  return new Command('schedule')
    .description('Explain where a running manager would place a container (docker run style options)')
    .argument('<image>', 'image to run')
    .argument('[cmd...]', 'command')
    .option('--explain', 'show every node with the verdict of each filter and the strategy ranking')
    .addOption(new Option('-H, --host <addr>', 'manager to ask').env('DOCKER_HOST').default('tcp://127.0.0.1:2375'))
    .option('-e, --env <K=V>', 'environment variable (constraint:, affinity: ...)', collect)
    .option('-m, --memory <bytes>', 'memory limit (512m, 1g)')
    .option('-c, --cpu-shares <n>', 'CPU shares (Swarm reads them as CPUs)')
    .option('-p, --publish <spec>', 'publish a port ([ip:][hostPort:]containerPort[/proto])', collect)
    .option('--name <name>', 'container name')
    .option('-l, --label <k=v>', 'label', collect)
    .option('--net <network>', 'network mode')
    .option('--link <name:alias>', 'link', collect)
    .option('--volumes-from <container>', 'volumes from', collect)
    .option('--json', 'print the explanation as JSON')
    .passThroughOptions()
    .action(schedule);
}
