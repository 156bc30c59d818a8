import type { DiscoveryEntry } from './discovery.js';
import { ErrorCodes, SwarmError } from './errors.js';

const RANGE = /\[(\d+):(\d+)\]/;
/** Guards against a typo such as `[1:100000]` dialling a hundred thousand addresses. */
const MAX_RANGE_SIZE = 4096;

const invalid = (message: string): SwarmError => new SwarmError(ErrorCodes.DISCOVERY_INVALID, message);

/** One `host:port` (IPv6 as `[::1]:2375`) checked and split. */
export function parseDiscoveryEntry(text: string): DiscoveryEntry {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d+)$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port > 0 && port < 65536)) {
    throw invalid(`invalid discovery entry "${text}": expected host:port (for example 127.0.0.2:2375)`);
  }
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port, addr: text };
}

/** Expand one `[from:to]` range (Swarm classic's discovery.Generate): `10.0.0.[1:3]:2375`. */
export function expandDiscoveryRange(pattern: string): string[] {
  const match = RANGE.exec(pattern);
  if (!match) return [pattern];
  const from = Number(match[1]);
  const to = Number(match[2]);
  if (from > to) throw invalid(`invalid discovery range "${pattern}": ${from} is greater than ${to}`);
  if (to - from + 1 > MAX_RANGE_SIZE) throw invalid(`invalid discovery range "${pattern}": more than ${MAX_RANGE_SIZE} addresses`);
  const entries: string[] = [];
  for (let value = from; value <= to; value++) entries.push(pattern.replace(RANGE, String(value)));
  return entries;
}

/** Parse a comma separated list of `host:port` items, each possibly a range; duplicates are dropped. */
export function parseDiscoveryList(list: string): DiscoveryEntry[] {
  const items = list.split(',').map((item) => item.trim());
  if (items.every((item) => item === '')) throw invalid('empty discovery list: expected host:port[,host:port...]');
  const seen = new Map<string, DiscoveryEntry>();
  for (const item of items) {
    if (item === '') throw invalid(`invalid discovery list "${list}": empty item`);
    for (const addr of expandDiscoveryRange(item)) {
      if (!seen.has(addr)) seen.set(addr, parseDiscoveryEntry(addr));
    }
  }
  return [...seen.values()];
}
