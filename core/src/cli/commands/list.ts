import { type DiscoveryWatcher } from '@swarm/plugin-sdk';
import { Command, Option } from 'commander';
import { parseDuration } from '../../config/duration.js';
import { loadCliConfig, type GlobalOptions } from '../cli-config.js';
import { openCliDiscovery } from '../discovery-access.js';
import { collect, keyValues } from '../key-values.js';
import { CoreErrors } from '../../errors.js';

interface ListFlags {
  timeout: string;
  discovery?: string;
  discoveryOpt?: string[];
}

/** Print the engines registered in a discovery service, one `ip:port` per line. */
async function list(positional: string | undefined, flags: ListFlags, command: Command): Promise<void> {
  const uri = positional ?? flags.discovery;
  if (!uri) throw CoreErrors.cliDiscoveryRequired({ action: 'list' });
  let timeout: number;
  try {
    timeout = parseDuration(flags.timeout);
  } catch (error) {
    throw CoreErrors.cliFlagInvalid({ flag: '--timeout', reason: (error as Error).message });
  }
  if (!(timeout > 0)) throw CoreErrors.cliTimeoutNotPositive();
  const cli = await loadCliConfig(command.optsWithGlobals<GlobalOptions>(), {});
  // As Swarm classic, the timeout doubles as the discovery's refresh period.
  const discovery = await openCliDiscovery(cli, uri, {
    heartbeat: timeout,
    ttl: 0,
    options: keyValues('--discovery-opt', flags.discoveryOpt) ?? {},
  });
  const entries = await new Promise<readonly string[]>((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // watch() may report before it returns: stop the watcher once it exists (a microtask later).
      queueMicrotask(() => watcher.stop());
      finish();
    };
    const timer = setTimeout(() => settle(() => reject(CoreErrors.cliListTimedOut())), timeout * 1000);
    const watcher: DiscoveryWatcher = discovery.watch(
      (found) => settle(() => resolve(found.map((entry) => entry.addr))),
      (error) => settle(() => reject(error)),
    );
  }).finally(() => discovery.close());
  for (const entry of entries) process.stdout.write(`${entry}\n`);
}

export function listCommand(): Command {
  return new Command('list')
    .description('List nodes in a cluster')
    .argument('[discovery]', 'discovery service to use [$SWARM_DISCOVERY]')
    .addOption(new Option('--discovery <uri>', 'discovery service to use').env('SWARM_DISCOVERY').hideHelp())
    .option('--timeout <duration>', 'timeout period', '10s')
    .option('--discovery-opt <key=value>', 'discovery options', collect)
    .action(list);
}
