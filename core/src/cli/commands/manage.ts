import { resolve as resolvePath } from 'node:path';
import { Command, Option } from 'commander';
import type { SwarmConfigInput, TlsInput } from '../../config/input.js';
import { Defaults } from '../../config/defaults.js';
import { requireDiscovery } from '../../deployment/build-deployment.js';
import { createSwarmFromResolved } from '../../embedding/create-swarm.js';
import { loadCliConfig, type GlobalOptions } from '../cli-config.js';
import { collect, keyValues, splitList } from '../key-values.js';
import { installSafetyNet } from '../safety-net.js';
import { pluginOfStack } from '../fault-origin.js';
import type { LoadedPlugin } from '../../plugins/loaded-plugin.js';
import { onShutdown } from '../shutdown.js';
import { ServiceNotifier } from '../service-notify.js';
import type { Deployment } from '../../deployment/deployment.js';
import { CoreErrors } from '../../errors.js';
import { CallMarks } from '../../plugins/watchdog/call-marks.js';
import { startWatchdog, WATCHDOG_EXIT_STATUS } from '../../plugins/watchdog/watchdog.js';
import { watchdogLimitMs } from '../../plugins/watchdog/default-limit.js';

/** Well under systemd's WatchdogSec (30 s in the unit), so the manager names the plugin before systemd kills it. */

interface ManageFlags {
  host?: string[];
  strategy?: string;
  strategyOpt?: string[];
  filter?: string[];
  clusterDriver?: string;
  clusterOpt?: string[];
  discoveryOpt?: string[];
  discovery?: string;
  heartbeat?: string;
  engineRefreshMinInterval?: string;
  engineRefreshMaxInterval?: string;
  engineFailureRetry?: string;
  engineRefreshRetry?: string;
  replication?: boolean;
  replicationTtl?: string;
  shutdownTimeout?: string;
  readyMinNodes?: string;
  advertise?: string;
  addr?: string;
  tls?: boolean;
  tlscacert?: string;
  tlscert?: string;
  tlskey?: string;
  tlsverify?: boolean;
  cors?: boolean;
  apiEnableCors?: boolean;
  ui?: boolean;
  authorizationPlugin?: string[];
  tokenAuthFile?: string;
  auditLog?: string;
  auditLogMaxsize?: string;
  auditLogMaxbackup?: string;
  watchdog?: string;
}

/** The access flags, as an `access` layer only when one is given (no flag: the config file decides). */
function accessFromFlags(flags: ManageFlags): SwarmConfigInput['access'] {
  const plugins = flags.authorizationPlugin;
  if (!plugins?.length && !flags.tokenAuthFile && !flags.auditLog) return undefined;
  return {
    authorizationPlugins: plugins?.length ? plugins : undefined,
    // A flag's path is the shell's, relative to where swarm runs; the plugin reads paths against the config's folder.
    tokenFile: flags.tokenAuthFile === undefined ? undefined : resolvePath(flags.tokenAuthFile),
    audit: flags.auditLog
      ? { path: flags.auditLog, maxSize: flags.auditLogMaxsize, maxBackups: integer('--audit-log-maxbackup', flags.auditLogMaxbackup) }
      : undefined,
  };
}

/** Swarm classic's `manage` flag checks that do not depend on the config file. */
function tlsFromFlags(flags: ManageFlags): TlsInput | undefined {
  if (flags.tls || flags.tlsverify) {
    if (!flags.tlscert || !flags.tlskey) throw CoreErrors.cliTlsNeedsCertAndKey();
    if (flags.tlsverify && !flags.tlscacert) throw CoreErrors.cliTlsVerifyNeedsCa();
    return { ca: flags.tlscacert, cert: flags.tlscert, key: flags.tlskey, verify: flags.tlsverify ?? false };
  }
  if (flags.tlscert || flags.tlskey || flags.tlscacert) {
    throw CoreErrors.cliTlsFilesWithoutTls();
  }
  return undefined;
}

function integer(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw CoreErrors.cliFlagNotInteger({ flag, value });
  return Number(value);
}

/** Swarm classic called the mesos driver `mesos-experimental`. */
function driverName(name: string | undefined): string | undefined {
  return name === 'mesos-experimental' ? 'mesos' : name;
}

export function manageFlagsToConfig(flags: ManageFlags, positional: string | undefined): SwarmConfigInput {
  const refreshRetry = integer('--engine-refresh-retry', flags.engineRefreshRetry);
  if (refreshRetry !== undefined && refreshRetry !== 3) {
    throw CoreErrors.cliRefreshRetryDeprecated();
  }
  const strategyOptions = keyValues('--strategy-opt', flags.strategyOpt);
  const discovery = positional ?? flags.discovery;
  return {
    cluster: {
      driver: driverName(flags.clusterDriver),
      discovery: discovery === '' ? undefined : discovery,
      options: keyValues('--cluster-opt', flags.clusterOpt),
      discoveryOptions: keyValues('--discovery-opt', flags.discoveryOpt),
      heartbeat: flags.heartbeat,
      engineRefreshMinInterval: flags.engineRefreshMinInterval,
      engineRefreshMaxInterval: flags.engineRefreshMaxInterval,
      engineFailureRetry: integer('--engine-failure-retry', flags.engineFailureRetry),
    },
    scheduler: { filters: splitList(flags.filter), strategy: flags.strategy, strategyOptions },
    api: {
      hosts: splitList(flags.host),
      cors: flags.cors || flags.apiEnableCors || undefined,
      shutdownTimeout: flags.shutdownTimeout,
      readyMinNodes: integer('--ready-min-nodes', flags.readyMinNodes),
    },
    tls: tlsFromFlags(flags),
    replication: { enabled: flags.replication || undefined, advertise: flags.advertise ?? flags.addr, ttl: flags.replicationTtl },
    ui: flags.ui || undefined,
    access: accessFromFlags(flags),
    watchdog: flags.watchdog === undefined ? undefined : { limit: flags.watchdog },
  };
}

async function manage(positional: string | undefined, flags: ManageFlags, command: Command): Promise<void> {
  // Start loading the API server now: it compiles while the config and plugins load.
  void import('../../api/index.js');
  const globals = command.optsWithGlobals<GlobalOptions>();
  const cli = await loadCliConfig(globals, manageFlagsToConfig(flags, positional));
  const { logger } = cli;
  let loaded: readonly LoadedPlugin[] = [];
  installSafetyNet(logger, (stack) => pluginOfStack(stack, loaded));
  if (cli.configFile) logger.debug({ file: cli.configFile }, 'config loaded');
  const watchdogMs = watchdogLimitMs(cli.resolved);
  const watchdog =
    watchdogMs > 0
      ? startWatchdog({ limitMs: watchdogMs, format: globals.logFormat === 'text' ? 'text' : 'json', marks: new CallMarks(true) })
      : undefined;
  const swarm = await createSwarmFromResolved(cli.resolved, {
    configDir: cli.configDir,
    logger,
    ...(watchdog ? { marks: watchdog.marks } : {}),
  });
  loaded = swarm.deployment.plugins;
  requireDiscovery(cli.resolved, swarm.deployment.providers, 'manage');
  logger.info({ plugins: swarm.deployment.plugins.length, driver: swarm.config.cluster.driver }, 'Deployment built');
  swarm.on('event', (event) =>
    logger.debug({ node: event.node?.Name, id: event.id, from: event.from, status: event.status ?? event.Action }, 'Event received'),
  );
  const notifier = ServiceNotifier.fromEnvironment(process.env, logger);
  onShutdown(logger, () => {
    void notifier?.stopping();
    return swarm.stop();
  });
  swarm.on('listening', ({ addresses }) => {
    for (const address of addresses) {
      const [proto, addr] = address.split('://');
      logger.info({ addr, proto }, 'Listening for HTTP');
    }
  });
  await swarm.start({ api: true });
  logger.info({ nodes: swarm.cluster.nodes().length }, 'Cluster started');
  if (notifier) {
    // Ready for systemd once the listeners are up and discovery has answered, as /_swarm/readyz counts them.
    await discoveryAnswered(swarm.deployment);
    await notifier.ready(`listening on ${swarm.addresses.join(', ')}; ${swarm.cluster.nodes().length} nodes`);
    notifier.startWatchdog();
  }
}

/** Settles once discovery has answered (or the driver finds its nodes itself). */
async function discoveryAnswered(deployment: Deployment): Promise<void> {
  for (;;) {
    const state = deployment.discoveryStatus().state;
    if (state === 'ok' || state === 'driver') return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function manageCommand(): Command {
  return new Command('manage')
    .description('Manage a docker cluster')
    .argument(
      '[discovery]',
      'discovery service to use [$SWARM_DISCOVERY]: nodes://<ip1>,<ip2>, <ip1>,<ip2>, file://path, zk://<ip1>,<ip2>/<path>, etcd://<ip1>,<ip2>/<path>',
    )
    .addOption(new Option('--discovery <uri>', 'discovery service to use').env('SWARM_DISCOVERY'))
    .addOption(new Option('-H, --host <addr>', `ip/socket to listen on (default "${Defaults.host}")`).env('SWARM_HOST').argParser(collect))
    .option('--strategy <name>', `placement strategy to use (default "${Defaults.strategy}")`)
    .option('--strategy-opt <key=value>', 'strategy options', collect)
    .option('-f, --filter <name>', `filter to use (default ${Defaults.filters.join(', ')})`, collect)
    .option('-c, --cluster-driver <name>', `cluster driver to use (default "${Defaults.driver}")`)
    .option('--cluster-opt <key=value>', 'cluster driver options', collect)
    .option('--discovery-opt <key=value>', 'discovery options', collect)
    .option('--heartbeat <duration>', 'period between each heartbeat (default "60s")')
    .option('--engine-refresh-min-interval <duration>', 'set engine refresh minimum interval (default "30s")')
    .option('--engine-refresh-max-interval <duration>', 'set engine refresh maximum interval (default "60s")')
    .option('--engine-failure-retry <n>', 'set engine failure retry count (default 3)')
    .addOption(new Option('--engine-refresh-retry <n>', 'deprecated; replaced by --engine-failure-retry').hideHelp())
    .option('--replication', 'Enable Swarm manager replication')
    .option('--replication-ttl <duration>', 'Leader lock release time on failure (default "20s")')
    .option(
      '--shutdown-timeout <duration>',
      'on SIGTERM, how long requests in flight may take before their connections close (default "10s")',
    )
    .option(
      '--ready-min-nodes <n>',
      '/_swarm/readyz answers ready only with at least this many healthy nodes; 0 ignores the nodes (default 1)',
    )
    .addOption(new Option('--advertise <ip:port>', 'Address of the swarm manager joining the cluster').env('SWARM_ADVERTISE'))
    .addOption(new Option('--addr <ip:port>', 'alias of --advertise').hideHelp())
    .option('--tls', 'use TLS; implied by --tlsverify')
    .option('--tlscacert <path>', 'trust only remotes providing a certificate signed by the CA given here')
    .option('--tlscert <path>', 'path to TLS certificate file')
    .option('--tlskey <path>', 'path to TLS key file')
    .option('--tlsverify', 'use TLS and verify the remote')
    .option('--cors', 'enable CORS headers in the remote API')
    .addOption(new Option('--api-enable-cors', 'alias of --cors').hideHelp())
    .option(
      '--authorization-plugin <name>',
      'Docker engine authorization plugin to ask before and after each request (repeatable, in chain order): a name under /run/docker/plugins, /etc/docker/plugins or /usr/lib/docker/plugins, or a unix:// or http(s):// URL',
      collect,
    )
    .option('--token-auth-file <path>', 'bearer tokens of callers, one per line: token,user,uid,"group1,group2" (kube-apiserver\'s format)')
    .option('--audit-log <path>', 'write one JSON line per request to this file (- for standard output)')
    .option('--audit-log-maxsize <size>', 'rotate the audit log at this size (default "100m")')
    .option('--audit-log-maxbackup <n>', 'rotated audit logs to keep (default 5)')
    .option(
      '--watchdog <duration>',
      `end the manager (exit status ${WATCHDOG_EXIT_STATUS}) when its event loop stays blocked this long, naming the plugin call; 0 turns it off (default "10s" when plugin packages run in process, else off)`,
    )
    .option('--ui', 'serve the web view of the cluster at /swarm/ui/ on the API listeners (read-only)')
    .action(manage);
}
