import { type PlacementExplanation } from '@swarm/plugin-sdk';
import { Command, Option } from 'commander';
import { formatExplanation } from '../../explain/explanation-table.js';
import { EXPLAIN_EXIT_HELP, ExplainExit, explainExitCode } from '../explain-outcome.js';
import { postJson } from '../http-post.js';
import { withRunOptions, type RunArguments } from '../../explain/run-arguments.js';
import { buildContainerConfig } from '../../explain/run-options.js';
import { loadConfigFile } from '../../config/load.js';
import { CoreErrors } from '../../errors.js';

interface ScheduleFlags extends RunArguments {
  explain?: boolean;
  host?: string;
  json?: boolean;
}

const DEFAULT_HOST = 'tcp://127.0.0.1:2375';

/** -H, then $DOCKER_HOST, then the first `api.hosts` of the config file in this folder, then Swarm classic's default. */
async function managerAddress(flags: ScheduleFlags): Promise<string> {
  if (flags.host) return flags.host;
  const hosts = (await loadConfigFile())?.input.api?.hosts;
  return hosts?.[0] ?? DEFAULT_HOST;
}

async function schedule(image: string, cmd: string[], flags: ScheduleFlags): Promise<void> {
  let explanation: PlacementExplanation;
  try {
    if (!flags.explain) throw CoreErrors.cliScheduleNeedsExplain();
    const config = buildContainerConfig(image, cmd, flags);
    const query = flags.name ? `?name=${encodeURIComponent(flags.name)}` : '';
    explanation = (await postJson(await managerAddress(flags), `/_swarm/v1/explain${query}`, config)) as PlacementExplanation;
  } catch (error) {
    // one line on stderr as for every command, but exit 2: 1 means the manager refused the container
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = ExplainExit.error;
    return;
  }
  process.stdout.write(flags.json ? `${JSON.stringify(explanation, null, 2)}\n` : formatExplanation(explanation));
  process.exitCode = explainExitCode(explanation);
}

export function scheduleCommand(): Command {
  return withRunOptions(
    new Command('schedule')
      .description('Explain where a running manager would place a container (docker run style options)')
      .option('--explain', 'show every node with the verdict of each filter and the strategy ranking')
      .addOption(
        new Option('-H, --host <addr>', `manager to ask (default: the config's api.hosts[0], else ${DEFAULT_HOST})`).env('DOCKER_HOST'),
      )
      .option('--json', 'print the explanation as JSON')
      .addHelpText('after', `\n${EXPLAIN_EXIT_HELP}`),
  ).action(schedule);
}
