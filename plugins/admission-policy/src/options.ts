import { PolicyErrors } from './errors.js';
import { allowedUrlEntries, type FetchUrl } from './fetch-urls.js';
import type { HostPathEntry } from './host-paths.js';
import { LEVELS, isLevel, type Level } from './levels.js';
import { subnetEntries, type Subnet } from './subnets.js';
import { cgroupParents, hostPathEntries, isRecord, list, names, nonEmptyString, seccompDigests } from './option-lists.js';

/** One binding: the level for a user, or for the members of a group. */
export type Binding = { readonly user: string; readonly level: Level } | { readonly group: string; readonly level: Level };

export interface PolicySettings {
  /** The level of callers no binding names. */
  readonly defaultLevel: Level;
  /** In the order given: the first that names the caller decides. */
  readonly bindings: readonly Binding[];
  /** Bind sources baseline and restricted allow, read-only unless an entry says otherwise. */
  readonly allowedHostPaths: readonly HostPathEntry[];
  /** Volume drivers besides `local` (plugins) baseline allows, with the options the plugin takes. */
  readonly allowedVolumeDrivers: readonly string[];
  /** `sha256:<hex>` of the inline seccomp profiles baseline allows (the engine's default is always allowed). */
  readonly allowedSeccompProfiles: readonly string[];
  /** AppArmor profiles loaded on the engines' hosts that baseline allows besides `docker-default`. */
  readonly allowedAppArmorProfiles: readonly string[];
  /** Cgroup parents (and what is below them) baseline allows. */
  readonly allowedCgroupParents: readonly string[];
  /** URL prefixes a build's `remote` or an import's `fromSrc` may fetch from (the engine fetches them). */
  readonly allowedUrls: readonly FetchUrl[];
  /** Network drivers besides `bridge` and `overlay` (plugins) baseline allows, with the options the plugin takes. */
  readonly allowedNetworkDrivers: readonly string[];
  /** IPAM drivers besides the engine's `default` (plugins) baseline allows. */
  readonly allowedIpamDrivers: readonly string[];
  /** Address prefixes a network's subnet, range, gateway and auxiliary addresses may be under. */
  readonly allowedSubnets: readonly Subnet[];
}

const OPTIONS = [
  'default',
  'bindings',
  'allowedHostPaths',
  'allowedVolumeDrivers',
  'allowedSeccompProfiles',
  'allowedAppArmorProfiles',
  'allowedCgroupParents',
  'allowedUrls',
  'allowedNetworkDrivers',
  'allowedIpamDrivers',
  'allowedSubnets',
] as const;
const BINDING_KEYS = ['user', 'group', 'level'] as const;

/**
 * Baseline when the options name no default: it stops the known escalations and runs what a
 * plain `docker run` asks for, as Kubernetes recommends enforcing for most namespaces.
 */
export const DEFAULT_LEVEL: Level = 'baseline';

function unknownKeys(value: Readonly<Record<string, unknown>>, known: readonly string[], prefix: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw PolicyErrors.optionUnknown({ path: `${prefix}${key}`, known });
  }
}

function level(value: unknown, path: string): Level {
  if (!isLevel(value)) throw PolicyErrors.levelUnknown({ path, got: value, levels: LEVELS });
  return value;
}

function binding(value: unknown, path: string): Binding {
  if (!isRecord(value)) throw PolicyErrors.optionType({ path, expected: 'an object { user | group, level }', got: value });
  unknownKeys(value, BINDING_KEYS, `${path}.`);
  if ((value['user'] === undefined) === (value['group'] === undefined)) throw PolicyErrors.bindingSubject({ path });
  const bound = level(value['level'], `${path}.level`);
  return value['user'] !== undefined
    ? { user: nonEmptyString(value['user'], `${path}.user`), level: bound }
    : { group: nonEmptyString(value['group'], `${path}.group`), level: bound };
}

/**
 * The entry's options, checked: every mistake is a coded error naming the option's path. Seccomp
 * profile files are read relative to `configDir`.
 */
export function parsePolicyOptions(options: Readonly<Record<string, unknown>>, configDir = '/'): PolicySettings {
  unknownKeys(options, OPTIONS, '');
  return {
    defaultLevel: options['default'] === undefined ? DEFAULT_LEVEL : level(options['default'], 'default'),
    bindings: list(options['bindings'], 'bindings', 'a list of bindings').map((entry, i) => binding(entry, `bindings[${i}]`)),
    allowedHostPaths: hostPathEntries(options['allowedHostPaths']),
    allowedVolumeDrivers: names(options['allowedVolumeDrivers'], 'allowedVolumeDrivers'),
    allowedSeccompProfiles: seccompDigests(options['allowedSeccompProfiles'], configDir),
    allowedAppArmorProfiles: names(options['allowedAppArmorProfiles'], 'allowedAppArmorProfiles'),
    allowedCgroupParents: cgroupParents(options['allowedCgroupParents']),
    allowedUrls: allowedUrlEntries(options['allowedUrls']),
    allowedNetworkDrivers: names(options['allowedNetworkDrivers'], 'allowedNetworkDrivers'),
    allowedIpamDrivers: names(options['allowedIpamDrivers'], 'allowedIpamDrivers'),
    allowedSubnets: subnetEntries(options['allowedSubnets']),
  };
}
