import { isSharedPropagation } from './binds.js';
import { judgeHostPath } from './host-path-rule.js';
import { foreignTmpfsOption } from './tmpfs-options.js';
import { listOf, record, stringOf, textOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

type Fields = Readonly<Record<string, unknown>>;

const DRIVER = 'volume-driver';
const OPTIONS = 'volume-options';

/** The options moby's local driver reads (`volume/local`); it refuses any other. */
const LOCAL_OPTIONS = new Set(['type', 'device', 'o', 'size']);
/** Filesystems the local driver mounts over the network, from the engine's host. */
const NETWORK_FS = new Set(['nfs', 'nfs4', 'cifs', 'smb', 'smb3']);

/** A volume as the engine would make it, with the fields that say so. */
interface VolumeUse {
  /** `local` when none is named. */
  readonly driver: string;
  readonly options: Fields;
  readonly driverField: string;
  /** Options are named `${optionsField}.${key}`. */
  readonly optionsField: string;
}

const isLocal = (driver: string) => driver === '' || driver === 'local';

function driverViolation(use: VolumeUse, context: RuleContext): Violation | undefined {
  if (isLocal(use.driver) || context.settings.allowedVolumeDrivers.includes(use.driver)) return undefined;
  return {
    rule: DRIVER,
    field: use.driverField,
    detail: `: ${use.driver} is not a volume driver the operator allowed (allowedVolumeDrivers)`,
  };
}

/**
 * The local driver mounts `device` of filesystem `type` with options `o`: any filesystem of the
 * host (`proc`, `sysfs`, `devtmpfs`, `overlay` over host directories, a disk) or of the network
 * (`nfs`, `cifs` reach any address from the engine's host). Baseline allows a tmpfs with tmpfs
 * options, a quota (`size`), and a bind (`o=bind`) of an allowed host path, read-only (`o=bind,ro`)
 * under a read-only entry.
 */
function localOptionsViolation(use: VolumeUse, context: RuleContext): Violation | undefined {
  const { options, optionsField } = use;
  const unknown = Object.keys(options).find((key) => !LOCAL_OPTIONS.has(key));
  if (unknown !== undefined) return { rule: OPTIONS, field: `${optionsField}.${unknown}`, detail: ': not an option of the local driver' };
  const type = stringOf(options['type']);
  const device = stringOf(options['device']);
  const flags = stringOf(options['o'])
    .split(',')
    .filter((flag) => flag !== '');
  if (flags.includes('bind') || flags.includes('rbind')) {
    const shared = flags.find(isSharedPropagation);
    if (shared)
      return { rule: 'mount-propagation', field: `${optionsField}.o`, detail: `: ${shared} propagation reaches the host's mounts` };
    const field = `${optionsField}.device`;
    const use = { path: device, field, readOnly: flags.includes('ro'), readOnlyField: `${optionsField}.o`, readOnlyHint: 'add ro to o' };
    return judgeHostPath(use, context.settings.allowedHostPaths);
  }
  if (type === 'tmpfs') {
    const flag = foreignTmpfsOption(flags.join(','));
    return flag === undefined
      ? undefined
      : { rule: OPTIONS, field: `${optionsField}.o`, detail: `: ${flag} is not a tmpfs option baseline allows` };
  }
  if (type === '' && device === '' && flags.length === 0) return undefined;
  const what = NETWORK_FS.has(type) ? "reaches the network from the engine's host" : "mounts what the engine's host has";
  const shown = type === '' ? 'a device' : type;
  return {
    rule: OPTIONS,
    field: `${optionsField}.${type === '' ? 'device' : 'type'}`,
    detail: `: ${shown} ${what} (baseline allows tmpfs, size, and o=bind under allowedHostPaths)`,
  };
}

/** No driver options at restricted; the local driver's judged at baseline; an allowed plugin's are the operator's to trust. */
function judgeVolume(use: VolumeUse, context: RuleContext): Violation | undefined {
  const refused = driverViolation(use, context);
  if (refused) return refused;
  const first = Object.keys(use.options)[0];
  if (first === undefined) return undefined;
  if (context.level === 'restricted')
    return { rule: OPTIONS, field: `${use.optionsField}.${first}`, detail: ': restricted allows no volume driver options' };
  return isLocal(use.driver) ? localOptionsViolation(use, context) : undefined;
}

/** `--volume-driver` and `--mount type=volume,volume-driver=...,volume-opt=...` of a create. */
export function volumesRule(context: RuleContext): Violation | undefined {
  const volumeDriver = textOf(context.host, 'VolumeDriver');
  if (volumeDriver !== '') {
    const refused = driverViolation(
      { driver: volumeDriver, options: {}, driverField: 'HostConfig.VolumeDriver', optionsField: '' },
      context,
    );
    if (refused) return refused;
  }
  for (const [i, mount] of listOf<Fields>(context.host, 'Mounts').entries()) {
    if (mount['Type'] !== 'volume') continue;
    const at = `HostConfig.Mounts[${i}].VolumeOptions.DriverConfig`;
    const driver = record(record(mount['VolumeOptions'])['DriverConfig']);
    const use = {
      driver: stringOf(driver['Name']),
      options: record(driver['Options']),
      driverField: `${at}.Name`,
      optionsField: `${at}.Options`,
    };
    const refused = judgeVolume(use, context);
    if (refused) return refused;
  }
  return undefined;
}

/**
 * `docker volume create`: the volume the host hands in as the one mount of a config (see
 * AdmissionRequest), named in the fields of the volume create (`Driver`, `DriverOpts.type`).
 */
export function volumeCreateRule(context: RuleContext): Violation | undefined {
  const [mount] = listOf<Fields>(context.host, 'Mounts');
  const driver = record(record(mount?.['VolumeOptions'])['DriverConfig']);
  return judgeVolume(
    { driver: stringOf(driver['Name']), options: record(driver['Options']), driverField: 'Driver', optionsField: 'DriverOpts' },
    context,
  );
}
