import { BlockList, isIP } from 'node:net';
import { PolicyErrors } from './errors.js';
import { names } from './option-lists.js';

/** An address prefix (`10.200.0.0/16`, `fd00:1::/48`) as written and as Node.js compares it. */
export interface Subnet {
  readonly text: string;
  readonly family: 4 | 6;
  readonly prefix: number;
  readonly block: BlockList;
}

/** `address/prefix` read, or undefined when it is not one (a zone, a prefix out of range). */
export function readCidr(text: string): { readonly address: string; readonly family: 4 | 6; readonly prefix: number } | undefined {
  // Node.js reads an IPv6 zone (`%eth0`), Go's ParseCIDR does not
  const match = /^([^/%\s]+)\/(\d{1,3})$/.exec(text);
  if (!match) return undefined;
  const family = isIP(match[1]!);
  const prefix = Number(match[2]);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
  return { address: match[1]!, family: family as 4 | 6, prefix };
}

const type = (family: 4 | 6) => (family === 4 ? 'ipv4' : 'ipv6');

/** `allowedSubnets`: CIDR prefixes, checked when the host builds the policy. */
export function subnetEntries(value: unknown): readonly Subnet[] {
  return names(value, 'allowedSubnets').map((text, i) => {
    const cidr = readCidr(text);
    if (!cidr) throw PolicyErrors.optionType({ path: `allowedSubnets[${i}]`, expected: 'a CIDR prefix (10.200.0.0/16)', got: text });
    const block = new BlockList();
    block.addSubnet(cidr.address, cidr.prefix, type(cidr.family));
    return { text, family: cidr.family, prefix: cidr.prefix, block };
  });
}

/**
 * True when every address of `address/prefix` is under an entry of its own family (an IPv4-mapped
 * IPv6 address is IPv6 here, as the engine reads it): the engine masks the address to the prefix,
 * and an entry that holds one address of a longer prefix holds all of them.
 */
export function isAllowedRange(address: string, prefix: number, allowed: readonly Subnet[]): boolean {
  const family = isIP(address);
  if (family === 0 || address.includes('%')) return false;
  return allowed.some((entry) => entry.family === family && prefix >= entry.prefix && entry.block.check(address, type(entry.family)));
}
