import { parseDuration } from '@swarm/plugin-sdk/helpers';
import { MesosErrors } from './errors.js';

/** The driver's `--cluster-opt mesos.*` settings, with Swarm classic's defaults and env fallbacks. */
export interface MesosOptions {
  /** Address advertised as the framework's hostname (mesos.address). */
  address?: string;
  port?: number;
  user: string;
  role: string;
  taskTimeoutMs: number;
  offerTimeoutMs: number;
  refuseTimeoutMs: number;
  checkpoint: boolean;
  failoverTimeoutMs: number;
  frameworkName: string;
  /** Where the framework ID is kept when the master is not found through ZooKeeper. */
  stateFile?: string;
  /** Send TEARDOWN when the manager stops (mesos.teardown=true). */
  teardownOnStop: boolean;
}

type RawOptions = Readonly<Record<string, string>>;
type Env = Readonly<Record<string, string | undefined>>;

function read(options: RawOptions, env: Env, key: string, envKey?: string): string | undefined {
  return options[key] ?? (envKey ? env[envKey] : undefined);
}

function duration(options: RawOptions, env: Env, key: string, envKey: string | undefined, fallbackMs: number, label: string): number {
  const raw = read(options, env, key, envKey);
  if (raw === undefined) return fallbackMs;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch (error) {
    throw MesosErrors.optionDuration({ key, reason: (error as Error).message });
  }
  if (ms < 0) throw MesosErrors.optionNegative({ label });
  return ms;
}

function bool(options: RawOptions, env: Env, key: string, envKey: string | undefined, fallback: boolean): boolean {
  const raw = read(options, env, key, envKey);
  if (raw === undefined) return fallback;
  if (/^(1|t|true)$/i.test(raw)) return true;
  if (/^(0|f|false)$/i.test(raw)) return false;
  throw MesosErrors.optionBool({ key, raw });
}

export function parseMesosOptions(options: RawOptions, env: Env = process.env): MesosOptions {
  const address = read(options, env, 'mesos.address', 'SWARM_MESOS_ADDRESS');
  if (address !== undefined && !/^[\d.]+$|:/.test(address)) throw MesosErrors.optionAddress({ address });
  const portText = read(options, env, 'mesos.port', 'SWARM_MESOS_PORT');
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw MesosErrors.optionPort({ port: String(portText) });
  const parsed: MesosOptions = {
    user: read(options, env, 'mesos.user', 'SWARM_MESOS_USER') ?? '',
    role: read(options, env, 'mesos.role', 'SWARM_MESOS_ROLE') ?? '*',
    taskTimeoutMs: duration(options, env, 'mesos.tasktimeout', 'SWARM_MESOS_TASK_TIMEOUT', 5000, 'mesos.taskCreationTimeout'),
    offerTimeoutMs: duration(options, env, 'mesos.offertimeout', 'SWARM_MESOS_OFFER_TIMEOUT', 30_000, 'mesos.offerTimeout'),
    refuseTimeoutMs: duration(
      options,
      env,
      'mesos.offerrefusetimeout',
      'SWARM_MESOS_OFFER_REFUSE_TIMEOUT',
      5000,
      'mesos.offerrefusetimeout',
    ),
    checkpoint: bool(options, env, 'mesos.checkpointfailover', 'SWARM_MESOS_CHECKPOINT_FAILOVER', false),
    failoverTimeoutMs: duration(options, env, 'mesos.failovertimeout', 'SWARM_MESOS_FAILOVER_TIMEOUT', 3_600_000, 'mesos.failovertimeout'),
    frameworkName: read(options, env, 'mesos.name') ?? 'swarm',
    teardownOnStop: bool(options, env, 'mesos.teardown', undefined, false),
  };
  if (address !== undefined) parsed.address = address;
  if (port !== undefined) parsed.port = port;
  const stateFile = read(options, env, 'mesos.statefile', 'SWARM_MESOS_STATE_FILE');
  if (stateFile !== undefined) parsed.stateFile = stateFile;
  return parsed;
}
