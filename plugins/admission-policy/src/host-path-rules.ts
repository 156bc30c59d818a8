import { isSharedPropagation, parseBind } from './binds.js';
import { isUnderPrefixes, outsideDetail } from './host-paths.js';
import { listOf, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

type Fields = Readonly<Record<string, unknown>>;

const HOST_PATH = 'host-path';
const PROPAGATION = 'mount-propagation';
/** Filesystems the local volume driver mounts over the network: their `device` is not a host path. */
const NETWORK_FS = new Set(['nfs', 'nfs4', 'cifs', 'smb', 'smb3']);

const field = (value: unknown): Fields => (typeof value === 'object' && value !== null ? (value as Fields) : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function hostPathViolation(path: string, at: string, allowed: readonly string[]): Violation | undefined {
  return path.startsWith('/') && isUnderPrefixes(path, allowed)
    ? undefined
    : { rule: HOST_PATH, field: at, detail: outsideDetail(path, allowed) };
}

/** `-v /src:/dst[:opts]`: the source must be under an allowed prefix; named volumes are fine. */
export function bindsRule(context: RuleContext): Violation | undefined {
  const binds = listOf<string>(context.host, 'Binds');
  for (const [i, raw] of binds.entries()) {
    const at = `HostConfig.Binds[${i}]`;
    const bind = parseBind(raw);
    const refused = bind.hostPath === undefined ? undefined : hostPathViolation(bind.hostPath, at, context.allowedHostPaths);
    if (refused) return refused;
    const shared = bind.modes.find(isSharedPropagation);
    if (shared) return { rule: PROPAGATION, field: at, detail: `: ${shared} propagation reaches the host's mounts` };
  }
  return undefined;
}

/**
 * A volume of the local driver with `o=bind` (or a block device, `type=ext4,device=/dev/sdb1`)
 * mounts a host path as surely as a bind: `--mount type=volume,volume-opt=o=bind,volume-opt=device=/etc`.
 */
function volumeDevice(mount: Fields): string | undefined {
  const driver = field(field(mount['VolumeOptions'])['DriverConfig']);
  if (text(driver['Name']) !== '' && driver['Name'] !== 'local') return undefined;
  const options = field(driver['Options']);
  const device = text(options['device']);
  if (device === '') return undefined;
  const bind = text(options['o'])
    .split(',')
    .some((option) => option === 'bind' || option === 'rbind');
  const local = device.startsWith('/') && !device.startsWith('//') && !NETWORK_FS.has(text(options['type']));
  return bind || local ? device : undefined;
}

function mountViolation(mount: Fields, at: string, allowed: readonly string[]): Violation | undefined {
  const type = text(mount['Type']);
  if (type === 'npipe') return { rule: HOST_PATH, field: `${at}.Source`, detail: `: named pipe ${text(mount['Source'])} is on the host` };
  if (type === 'bind') {
    const refused = hostPathViolation(text(mount['Source']), `${at}.Source`, allowed);
    if (refused) return refused;
    const propagation = text(field(mount['BindOptions'])['Propagation']);
    if (isSharedPropagation(propagation))
      return {
        rule: PROPAGATION,
        field: `${at}.BindOptions.Propagation`,
        detail: `: ${propagation} propagation reaches the host's mounts`,
      };
  }
  if (type === 'volume') {
    const device = volumeDevice(mount);
    if (device !== undefined) return hostPathViolation(device, `${at}.VolumeOptions.DriverConfig.Options.device`, allowed);
  }
  return undefined;
}

/** `--mount type=bind|npipe|volume`: the same prefixes as binds, for every way a mount reaches the host. */
export function mountsRule(context: RuleContext): Violation | undefined {
  const mounts = listOf<Fields>(context.host, 'Mounts');
  for (const [i, mount] of mounts.entries()) {
    const refused = mountViolation(mount, `HostConfig.Mounts[${i}]`, context.allowedHostPaths);
    if (refused) return refused;
  }
  return undefined;
}

/**
 * `docker volume create -d local -o o=bind -o device=/etc`: the volume the host hands in as the
 * one mount of a config (see AdmissionRequest), named in the fields of the volume create.
 */
export function volumeCreateRule(context: RuleContext): Violation | undefined {
  const [mount] = listOf<Fields>(context.host, 'Mounts');
  const device = mount === undefined ? undefined : volumeDevice(mount);
  return device === undefined ? undefined : hostPathViolation(device, 'DriverOpts.device', context.allowedHostPaths);
}
