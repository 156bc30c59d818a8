import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster } from '@swarm/plugin-sdk';
import { Command, Option } from 'commander';
import type { SwarmConfigInput } from '../../config/input.js';
import { loadConfigFile } from '../../config/load.js';
import { createSwarmFromResolved } from '../../embedding/create-swarm.js';
import { CoreErrors } from '../../errors.js';
import { loadCliConfig, type GlobalOptions } from '../cli-config.js';
import { collect, keyValues, splitList } from '../key-values.js';
import { onShutdown } from '../shutdown.js';
import { sandboxBanner } from './sandbox-banner.js';
import { sandboxLabels } from './sandbox-labels.js';
import { PluginReloader, SANDBOX_ENGINES_ENV } from './sandbox-reload.js';

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
  plugin?: string;
  enginePorts?: string;
}

const SANDBOX_HOST = 'tcp://127.0.0.1:2375';

function wholeNumber(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value)) throw CoreErrors.cliFlagNotInteger({ flag, value });
  const number = Number(value);
  if (number < min) throw CoreErrors.cliFlagInvalid({ flag, reason: `${value} is below ${min}` });
  return number;
}

/** The manage config over the engines just started; the config file still brings plugins, filters and strategy. */
function sandboxConfig(flags: SandboxFlags, addresses: string, plugins?: SwarmConfigInput['plugins']): SwarmConfigInput {
  return {
    ...(plugins ? { plugins } : {}),
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

/** The config file's plugins and the one `--plugin DIR` loads from its folder, by its absolute path. */
async function withPluginDir(globals: GlobalOptions, dir: string): Promise<SwarmConfigInput['plugins']> {
  const file = await loadConfigFile({ path: globals.config });
  return [...(file?.input.plugins ?? []), dir];
}

/** The first of `count` engine ports, when `--engine-ports FROM` fixes them (FROM, FROM+1, ...). */
function firstEnginePort(flags: SandboxFlags, count: number): number | undefined {
  if (flags.enginePorts === undefined) return undefined;
  const from = wholeNumber('--engine-ports', flags.enginePorts, 1);
  if (from + count - 1 > 65_535)
    throw CoreErrors.cliFlagInvalid({ flag: '--engine-ports', reason: `${from} + ${count} engines is past port 65535` });
  return from;
}

async function sandbox(flags: SandboxFlags, command: Command): Promise<void> {
  const count = wholeNumber('--nodes', flags.nodes, 1);
  const containersPerEngine = wholeNumber('--containers', flags.containers, 0);
  const delayMs = flags.delay === undefined ? undefined : wholeNumber('--delay', flags.delay, 0);
  const labels = sandboxLabels(flags.label ?? [], flags.labelCycle ?? []);
  const firstPort = firstEnginePort(flags, count);
  const globals = command.optsWithGlobals<GlobalOptions>();
  const pluginDir = flags.plugin === undefined ? undefined : resolve(flags.plugin);
  if (pluginDir !== undefined && !existsSync(pluginDir))
    throw CoreErrors.cliFlagInvalid({ flag: '--plugin', reason: `${pluginDir} does not exist` });
  const kept = process.env[SANDBOX_ENGINES_ENV];
  if (pluginDir !== undefined && kept !== undefined) return reloadedManager(flags, globals, pluginDir, kept, labels);
  // Loaded here only: no other command needs the hollow engines.
  const { startHollowCluster } = await import('../../hollow/index.js');
  // 127.0.0.1 with a free port each (or FROM, FROM+1, ...): the one loopback address every platform answers on
  const engines = await startHollowCluster({
    count,
    host: '127.0.0.1',
    namePrefix: 'sandbox-',
    labels,
    containersPerEngine,
    delayMs,
    ...(firstPort === undefined ? {} : { firstPort }),
  });
  if (pluginDir !== undefined) {
    try {
      const { logger } = await loadCliConfig(globals, {});
      const reloader = new PluginReloader({ dir: pluginDir, engines: engines.addrs, logger });
      onShutdown(logger, async () => {
        await reloader.stop();
        await engines.stop();
      });
      reloader.start();
      return;
    } catch (error) {
      await engines.stop();
      throw error;
    }
  }
  try {
    const cli = await loadCliConfig(globals, sandboxConfig(flags, engines.addrs));
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

/**
 * The manager of `swarm sandbox --plugin DIR`, in the child its supervisor replaces on every
 * change of the plugin's folder: over the engines the supervisor keeps, with the plugin loaded
 * from the folder.
 */
async function reloadedManager(
  flags: SandboxFlags,
  globals: GlobalOptions,
  pluginDir: string,
  addresses: string,
  labels: (index: number) => readonly string[],
): Promise<void> {
  const cli = await loadCliConfig(globals, sandboxConfig(flags, addresses, await withPluginDir(globals, pluginDir)));
  const swarm = await createSwarmFromResolved(cli.resolved, { configDir: cli.configDir, logger: cli.logger });
  onShutdown(cli.logger, () => swarm.stop());
  await swarm.start({ api: true });
  const count = addresses.split(',').length;
  await allHealthy(swarm.cluster, count, 10_000);
  const named = Array.from({ length: count }, (_, index) => ({ name: `sandbox-${index}`, labels: labels(index) }));
  process.stdout.write(sandboxBanner({ addresses: swarm.addresses, engines: named }));
  cli.logger.info({ plugin: pluginDir }, 'plugin loaded from its folder: a change to it reloads the manager');
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
    .option(
      '--plugin <dir>',
      "load the plugin in this folder (built: its package.json's main) and reload the manager when a file in it changes",
    )
    .option('--engine-ports <from>', 'hollow engines listen on 127.0.0.1:<from>, <from>+1, ... (default: free ports)')
    .action(sandbox);
}
