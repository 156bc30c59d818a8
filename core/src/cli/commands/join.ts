import { ErrorCodes, type SwarmError } from '@swarm/plugin-sdk';
import { Command, Option } from 'commander';
import { parseDuration } from '../../config/duration.js';
import { isAddrFormat } from '../../config/resolve.js';
import { loadCliConfig, type GlobalOptions } from '../cli-config.js';
import { parseDiscoveryUri } from '../../discovery/discovery-uri.js';
import { openCliDiscovery } from '../discovery-access.js';
import { collect, keyValues } from '../key-values.js';
import { onShutdown } from '../shutdown.js';
import { CoreErrors } from '../../errors.js';

interface JoinFlags {
  advertise?: string;
  addr?: string;
  heartbeat: string;
  ttl: string;
  delay: string;
  discovery?: string;
  discoveryOpt?: string[];
}

function duration(flag: string, value: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw CoreErrors.cliFlagInvalid({ flag, reason: (error as Error).message });
  }
}

/** The checks and messages of Swarm classic's `join`, in its order. */
export function checkJoinFlags(
  flags: JoinFlags,
  discovery: string | undefined,
): { addr: string; heartbeat: number; ttl: number; delay: number; discovery: string } {
  if (!discovery) throw CoreErrors.cliDiscoveryRequired({ action: 'join' });
  const addr = flags.advertise ?? flags.addr;
  if (!addr) throw CoreErrors.cliAdvertiseMissing();
  if (!isAddrFormat(addr)) throw CoreErrors.cliAdvertiseFormat();
  const delay = duration('--delay', flags.delay);
  if (delay < 0) throw CoreErrors.cliDelayNegative();
  const heartbeat = duration('--heartbeat', flags.heartbeat);
  if (heartbeat < 1) throw CoreErrors.cliHeartbeatTooShort();
  const ttl = duration('--ttl', flags.ttl);
  if (ttl <= heartbeat) throw CoreErrors.cliTtlNotAboveHeartbeat();
  return { addr, heartbeat, ttl, delay, discovery };
}

/**
 * A registration that never settles (a store client that lost a request) would stop the heartbeats
 * for good; past the TTL the entry is gone anyway, so the join reports it and registers again.
 */
function answeredWithin(registration: Promise<void>, ttlSeconds: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(CoreErrors.discoveryRegisterUnanswered({ seconds: ttlSeconds })), ttlSeconds * 1000);
  });
  return Promise.race([registration, deadline]).finally(() => clearTimeout(timer));
}

async function join(positional: string | undefined, flags: JoinFlags, command: Command): Promise<void> {
  const checked = checkJoinFlags(flags, positional ?? flags.discovery);
  const cli = await loadCliConfig(command.optsWithGlobals<GlobalOptions>(), {});
  const discovery = await openCliDiscovery(cli, checked.discovery, {
    heartbeat: checked.heartbeat,
    ttl: checked.ttl,
    options: keyValues('--discovery-opt', flags.discoveryOpt) ?? {},
  });
  const { logger } = cli;
  const registerAddr = discovery.register?.bind(discovery);
  if (registerAddr === undefined) {
    await discovery.close();
    throw CoreErrors.discoveryCannotRegister({ scheme: parseDiscoveryUri(checked.discovery).scheme });
  }
  let timer: NodeJS.Timeout | undefined;
  onShutdown(logger, async () => {
    clearTimeout(timer);
    await discovery.close();
  });
  const register = async (): Promise<void> => {
    try {
      await answeredWithin(registerAddr(checked.addr), checked.ttl);
    } catch (error) {
      if ((error as SwarmError).code === ErrorCodes.NOT_SUPPORTED) throw error;
      logger.error({ err: (error as Error).message }, 'error registering on the discovery service');
    }
    timer = setTimeout(() => void register().catch(fatal), checked.heartbeat * 1000);
  };
  const fatal = (error: unknown): void => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  };
  const delay = Math.random() * checked.delay * 1000;
  logger.info({ addr: checked.addr, discovery: checked.discovery }, `Registering on the discovery service every ${flags.heartbeat}...`);
  await new Promise((resolve) => setTimeout(resolve, delay));
  await register();
}

export function joinCommand(): Command {
  return new Command('join')
    .description('Join a docker cluster')
    .argument('[discovery]', 'discovery service to use [$SWARM_DISCOVERY]')
    .addOption(new Option('--discovery <uri>', 'discovery service to use').env('SWARM_DISCOVERY').hideHelp())
    .addOption(new Option('--advertise <ip:port>', 'Address of the Docker Engine joining the cluster').env('SWARM_ADVERTISE'))
    .addOption(new Option('--addr <ip:port>', 'alias of --advertise').hideHelp())
    .option('--heartbeat <duration>', 'period between each heartbeat', '60s')
    .option('--ttl <duration>', 'sets the expiration of an ephemeral node', '180s')
    .option('--delay <duration>', 'add a random delay in [0s,delay] to avoid synchronized registration', '0s')
    .option('--discovery-opt <key=value>', 'discovery options', collect)
    .action(join);
}
