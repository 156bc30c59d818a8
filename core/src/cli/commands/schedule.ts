import { ErrorCodes, type PlacementExplanation } from '@swarm/plugin-sdk';
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

/** The manager's 401 (no authenticator took the caller's credential) as the authentication stage's refusal. */
function authenticationRefusal(error: unknown): PlacementExplanation | undefined {
  if (!CoreErrors.cliManagerAnswered.is(error) || error.details?.['status'] !== 401) return undefined;
  const message = String(error.details['message'] ?? error.message);
  return {
    strategy: '-',
    filters: [],
    softDropped: false,
    nodes: [],
    summary: 'refused by authentication before scheduling',
    error: message,
    refused: { stage: 'authentication', code: ErrorCodes.UNAUTHENTICATED, status: 401 },
  };
}

async function schedule(image: string, cmd: string[], flags: ScheduleFlags): Promise<void> {
  let explanation: PlacementExplanation;
  try {
    if (!flags.explain) throw CoreErrors.cliScheduleNeedsExplain();
    const config = buildContainerConfig(image, cmd, flags);
    const query = flags.name ? `?name=${encodeURIComponent(flags.name)}` : '';
    explanation = (await postJson(await managerAddress(flags), `/_swarm/v1/explain${query}`, config)) as PlacementExplanation;
  } catch (error) {
    const unauthenticated = authenticationRefusal(error);
    if (unauthenticated !== undefined) {
      // authentication is the pipeline's first stage: its 401 is what docker run gets, a refusal
      explanation = unauthenticated;
    } else {
      // one line on stderr as for every command, but exit 2: 1 means the manager refused the container
      process.stderr.write(`${(error as Error).message}\n`);
      process.exitCode = ExplainExit.error;
      return;
    }
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
