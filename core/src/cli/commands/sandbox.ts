import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster } from '@swarm/plugin-sdk';
import { Command, Option } from 'commander';
import type { SwarmConfigInput } from '../../config/input.js';
import { createSwarmFromResolved } from '../../embedding/create-swarm.js';
import { CoreErrors } from '../../errors.js';
import { loadCliConfig, type GlobalOptions } from '../cli-config.js';
import { collect, keyValues, splitList } from '../key-values.js';
import { onShutdown } from '../shutdown.js';
import { sandboxBanner } from './sandbox-banner.js';
import { sandboxLabels } from './sandbox-labels.js';

interface SandboxFlags {
  nodes: string;
  label?: string[];
  labelCycle?: string[];
  containers: string;
  delay?: string;
  host?: string[];
  strategy?: string;
  strategyOpt?: string[];
  filter?: string[];
  clusterOpt?: string[];
  ui?: boolean;
  cors?: boolean;
}

const SANDBOX_HOST = 'tcp://127.0.0.1:2375';

function wholeNumber(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value)) throw CoreErrors.cliFlagNotInteger({ flag, value });
  const number = Number(value);
  if (number < min) throw CoreErrors.cliFlagInvalid({ flag, reason: `${value} is below ${min}` });
  return number;
}

/** The manage config over the engines just started; the config file still brings plugins, filters and strategy. */
function sandboxConfig(flags: SandboxFlags, addresses: string): SwarmConfigInput {
  return {
    // the engines are ours: the swarm driver over exactly these addresses, whatever the file names
    cluster: { driver: 'swarm', discovery: `nodes://${addresses}`, options: keyValues('--cluster-opt', flags.clusterOpt) },
    scheduler: {
      filters: splitList(flags.filter),
      strategy: flags.strategy,
      strategyOptions: keyValues('--strategy-opt', flags.strategyOpt),
    },
    api: { hosts: splitList(flags.host) ?? [SANDBOX_HOST], cors: flags.cors || undefined },
    // a sandbox is one manager: no store to elect a primary in
    replication: { enabled: false },
    ui: flags.ui || undefined,
  };
}

/** The banner promises a cluster `docker run` can use: wait, a few seconds at most, for every engine to be Healthy. */
async function allHealthy(cluster: Cluster, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && cluster.nodes().filter((node) => node.isHealthy()).length < count) await sleep(50);
}

async function sandbox(flags: SandboxFlags, command: Command): Promise<void> {
  const count = wholeNumber('--nodes', flags.nodes, 1);
  const containersPerEngine = wholeNumber('--containers', flags.containers, 0);
  const delayMs = flags.delay === undefined ? undefined : wholeNumber('--delay', flags.delay, 0);
  const labels = sandboxLabels(flags.label ?? [], flags.labelCycle ?? []);
  // Loaded here only: no other command needs the hollow engines.
  const { startHollowCluster } = await import('../../hollow/index.js');
  // 127.0.0.1 with a free port each: the one loopback address every platform answers on
  const engines = await startHollowCluster({ count, host: '127.0.0.1', namePrefix: 'sandbox-', labels, containersPerEngine, delayMs });
  try {
    const cli = await loadCliConfig(command.optsWithGlobals<GlobalOptions>(), sandboxConfig(flags, engines.addrs));
    const swarm = await createSwarmFromResolved(cli.resolved, { configDir: cli.configDir, logger: cli.logger });
    onShutdown(cli.logger, async () => {
      await swarm.stop();
      await engines.stop();
    });
    await swarm.start({ api: true });
    await allHealthy(swarm.cluster, count, 10_000);
    const named = engines.engines.map((engine, index) => ({ name: engine.name, labels: labels(index) }));
    process.stdout.write(sandboxBanner({ addresses: swarm.addresses, engines: named }));
  } catch (error) {
    await engines.stop();
    throw error;
  }
}

export function sandboxCommand(): Command {
  return new Command('sandbox')
    .description('Try swarm without engines: hollow Docker engines in this process and a manager in front of them')
    .option('-n, --nodes <n>', 'hollow engines to start', '4')
    .option('--label <key=value>', 'engine label on every node (repeatable)', collect)
    .option('--label-cycle <key=a,b,...>', 'label key with a on the first node, b on the second, ... and round again (repeatable)', collect)
    .option('--containers <n>', 'running containers each engine holds from the start', '0')
    .option('--delay <ms>', 'answer every engine call after this many ms (default: what a real engine takes)')
    .addOption(new Option('-H, --host <addr>', `ip/socket to listen on (default "${SANDBOX_HOST}")`).argParser(collect))
    .option('--strategy <name>', 'placement strategy to use (default: the config file\'s, or "spread")')
    .option('--strategy-opt <key=value>', 'strategy options', collect)
    .option('-f, --filter <name>', "filter to use (default: the config file's, or the built-in list)", collect)
    .option('--cluster-opt <key=value>', 'swarm driver options', collect)
    .option('--ui', 'serve the web view of the cluster at /swarm/ui/ on the API listeners (read-only)')
    .option('--cors', 'enable CORS headers in the remote API')
    .action(sandbox);
}
