import { isIP } from 'node:net';
import { tableFieldsViolation } from './allow-list-rule.js';
import { NETWORK_CREATE } from './field-table.js';
import { record, type RuleContext } from './request-body.js';
import { isAllowedRange, readCidr } from './subnets.js';
import type { Violation } from './violation.js';

type Fields = Readonly<Record<string, unknown>>;

/*
 * `docker network create`, judged on the body as the engine decodes it (AdmissionRequest's
 * `network`). The engine's own drivers that stay inside the engine's networking are bridge and
 * overlay; macvlan and ipvlan attach containers to a host interface (`parent`), and any other
 * driver or IPAM driver is a plugin running on the engine's host. Driver options are held to an
 * allow-list: moby's bridge driver reads options that name the host's bridge, the host addresses
 * ports are published on and how the host routes and NATs the network.
 */

/** The engine's drivers baseline allows: neither reaches past the engine's own networking. */
const DRIVERS = new Set(['', 'bridge', 'overlay']);
const IPAM_DRIVERS = new Set(['', 'default']);

/** What moby's bridge and overlay drivers read that changes only the network's own containers. */
const HARMLESS_OPTIONS = new Set([
  // the containers' interfaces' MTU and name prefix
  'com.docker.network.driver.mtu',
  'com.docker.network.container_iface_prefix',
  // whether the network's containers reach each other
  'com.docker.network.bridge.enable_icc',
  // the same as the body's EnableIPv4 and EnableIPv6
  'com.docker.network.enable_ipv4',
  'com.docker.network.enable_ipv6',
  // the overlay's traffic between engines in IPsec
  'encrypted',
]);

/** Why an option is refused, for those moby's drivers read that reach the host. */
const HOST_OPTIONS: Readonly<Record<string, string>> = {
  parent: "names the interface of the engine's host the network attaches to",
  'com.docker.network.bridge.name': "names the Linux bridge on the engine's host (docker0 is the engine's default network)",
  'com.docker.network.bridge.default_bridge': "makes the network the engine's default bridge",
  'com.docker.network.bridge.host_binding_ipv4': "chooses the host addresses the network's ports are published on",
  'com.docker.network.host_ipv4': "chooses the host address the network's traffic leaves from",
  'com.docker.network.host_ipv6': "chooses the host address the network's traffic leaves from",
  'com.docker.network.bridge.enable_ip_masquerade': "changes how the host NATs the network's traffic",
  'com.docker.network.bridge.gateway_mode_ipv4': "changes how the host routes to the network's containers",
  'com.docker.network.bridge.gateway_mode_ipv6': "changes how the host routes to the network's containers",
  'com.docker.network.bridge.inhibit_ipv4': "changes the host's address on the network's bridge",
  'com.docker.network.bridge.trusted_host_interfaces': "lets the host's interfaces reach the network's containers directly",
  'com.docker.network.driver.overlay.vxlanid_list': "chooses VXLAN IDs, which another team's overlay may hold",
};

/** `Options.parent`, `Options["com.docker.network.bridge.name"]`: a map key as the refusals name fields. */
function keyField(prefix: string, key: string): string {
  return /^[A-Za-z][\w-]*$/.test(key) ? `${prefix}.${key}` : `${prefix}[${JSON.stringify(key)}]`;
}

const malformed = (field: string, expected: string): Violation => ({ rule: 'malformed', field, detail: `: expected ${expected}` });

/** A string field of the body: the string, `''` when absent or null, undefined when of another type. */
function text(fields: Fields, key: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : undefined;
}

/** A string map of the body: `{}` when absent or null, undefined when not an object of strings. */
function stringMap(fields: Fields, key: string): Readonly<Record<string, string>> | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return {};
  const map = record(value);
  if (map !== value || !Object.values(map).every((item) => typeof item === 'string')) return undefined;
  return map as Readonly<Record<string, string>>;
}

/** Every field of the body in the table (network.create's), the rules' fields left to them. */
const networkFieldsViolation = tableFieldsViolation(NETWORK_CREATE);
export function networkAllowListRule(context: RuleContext): Violation | undefined {
  return networkFieldsViolation(context.network, context.level);
}

/** `--driver`: bridge, overlay, or a plugin the operator listed. */
export function networkDriverRule(context: RuleContext): Violation | undefined {
  const driver = text(context.network, 'Driver');
  if (driver === undefined) return malformed('Driver', 'a string');
  if (DRIVERS.has(driver) || context.settings.allowedNetworkDrivers.includes(driver)) return undefined;
  const why =
    driver === 'macvlan' || driver === 'ipvlan'
      ? `${driver} attaches containers to the interfaces of the engine's host`
      : `${driver} is not a network driver of the engine that baseline allows`;
  return { rule: 'network-driver', field: 'Driver', detail: `: ${why} (allowed: bridge, overlay and allowedNetworkDrivers)` };
}

/**
 * `--opt`: none at restricted; at baseline those of HARMLESS_OPTIONS for the engine's drivers, and
 * any for a driver the operator listed (the plugin's options are the operator's to trust).
 */
export function networkOptionsRule(context: RuleContext): Violation | undefined {
  const options = stringMap(context.network, 'Options');
  if (options === undefined) return malformed('Options', 'an object of strings');
  const driver = text(context.network, 'Driver') ?? '';
  for (const key of Object.keys(options)) {
    const field = keyField('Options', key);
    if (context.level === 'restricted') return { rule: 'network-options', field, detail: ': restricted allows no network driver options' };
    if (!DRIVERS.has(driver)) return undefined;
    if (HARMLESS_OPTIONS.has(key)) continue;
    const why = HOST_OPTIONS[key] ?? `not a ${driver || 'bridge'} option baseline allows`;
    return { rule: 'network-options', field, detail: `: ${why}` };
  }
  return undefined;
}

/** `--ipam-driver` and `--ipam-opt`: the engine's default allocator, or one the operator listed; no options at restricted. */
export function networkIpamRule(context: RuleContext): Violation | undefined {
  const ipam = context.network['IPAM'];
  if (ipam === undefined || ipam === null) return undefined;
  const fields = record(ipam);
  if (fields !== ipam) return malformed('IPAM', 'an object');
  const driver = text(fields, 'Driver');
  if (driver === undefined) return malformed('IPAM.Driver', 'a string');
  if (!IPAM_DRIVERS.has(driver) && !context.settings.allowedIpamDrivers.includes(driver)) {
    const detail = `: ${driver} is an IPAM plugin on the engine's host that the operator did not allow (allowedIpamDrivers)`;
    return { rule: 'network-ipam', field: 'IPAM.Driver', detail };
  }
  const options = stringMap(fields, 'Options');
  if (options === undefined) return malformed('IPAM.Options', 'an object of strings');
  const first = Object.keys(options)[0];
  if (context.level === 'restricted' && first !== undefined)
    return { rule: 'network-ipam', field: keyField('IPAM.Options', first), detail: ': restricted allows no IPAM driver options' };
  return undefined;
}

/** What a caller wrote in one field of `IPAM.Config[]`, as the range it covers. */
function rangeOf(value: string, isPrefix: boolean): { readonly address: string; readonly prefix: number } | undefined {
  if (isPrefix) return readCidr(value);
  const family = value.includes('%') ? 0 : isIP(value);
  return family === 0 ? undefined : { address: value, prefix: family === 4 ? 32 : 128 };
}

/** Each address field of one `IPAM.Config[]` entry: its path and value. */
function addressFields(entry: Fields, at: string): Array<readonly [string, unknown, boolean]> {
  const fields: Array<readonly [string, unknown, boolean]> = [
    [`${at}.Subnet`, entry['Subnet'], true],
    [`${at}.IPRange`, entry['IPRange'], true],
    [`${at}.Gateway`, entry['Gateway'], false],
  ];
  for (const [key, value] of Object.entries(record(entry['AuxiliaryAddresses'])))
    fields.push([keyField(`${at}.AuxiliaryAddresses`, key), value, false]);
  return fields;
}

/**
 * `--subnet`, `--ip-range`, `--gateway`, `--aux-address`: the engine's host routes a network's
 * subnet to its bridge, whatever else the host reaches there (its LAN, the other engines, a
 * cloud's metadata address), and the engine checks no overlap with the host's routes for a subnet
 * it is given. So the addresses are the engine's own pools' (none given) or under `allowedSubnets`.
 */
export function networkSubnetsRule(context: RuleContext): Violation | undefined {
  const config = record(context.network['IPAM'])['Config'];
  if (config === undefined || config === null) return undefined;
  if (!Array.isArray(config) || !config.every((entry) => record(entry) === entry)) return malformed('IPAM.Config', 'a list of objects');
  const allowed = context.settings.allowedSubnets;
  for (const [i, entry] of (config as Fields[]).entries()) {
    for (const [field, value, isPrefix] of addressFields(entry, `IPAM.Config[${i}]`)) {
      if (value === undefined || value === null || value === '') continue;
      if (typeof value !== 'string') return malformed(field, 'a string');
      const range = rangeOf(value, isPrefix);
      if (!range) return { rule: 'network-subnets', field, detail: `: ${value} is not an ${isPrefix ? 'address prefix' : 'address'}` };
      if (isAllowedRange(range.address, range.prefix, allowed)) continue;
      const where =
        allowed.length === 0
          ? "no subnet is a tenant's to choose (allowedSubnets); without one the engine takes its own pools"
          : `it is outside ${allowed.map((entry) => entry.text).join(', ')}`;
      return { rule: 'network-subnets', field, detail: `: the engine's host would route ${value} to the network: ${where}` };
    }
  }
  return undefined;
}
