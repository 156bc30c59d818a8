import type { DiscoveryEntry } from '../discovery.js';
import { SdkErrors } from '../errors.js';

const RANGE = /\[(\d+):(\d+)\]/;
/** Guards against a typo such as `[1:100000]` dialling a hundred thousand addresses. */
const MAX_RANGE_SIZE = 4096;

/** One `host:port` (IPv6 as `[::1]:2375`) checked and split. */
export function parseDiscoveryEntry(text: string): DiscoveryEntry {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d+)$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port > 0 && port < 65536)) {
    throw SdkErrors.discoveryEntryInvalid({ entry: text });
  }
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port, addr: text };
}

/** Expand one `[from:to]` range (Swarm classic's discovery.Generate): `10.0.0.[1:3]:2375`. */
export function expandDiscoveryRange(pattern: string): string[] {
  const match = RANGE.exec(pattern);
  if (!match) return [pattern];
  const from = Number(match[1]);
  const to = Number(match[2]);
  if (from > to) throw SdkErrors.discoveryRangeReversed({ pattern, from, to });
  if (to - from + 1 > MAX_RANGE_SIZE) throw SdkErrors.discoveryRangeTooLarge({ pattern, max: MAX_RANGE_SIZE });
  const entries: string[] = [];
  for (let value = from; value <= to; value++) entries.push(pattern.replace(RANGE, String(value)));
  return entries;
}

/** Parse a comma separated list of `host:port` items, each possibly a range; duplicates are dropped. */
export function parseDiscoveryList(list: string): DiscoveryEntry[] {
  const items = list.split(',').map((item) => item.trim());
  if (items.every((item) => item === '')) throw SdkErrors.discoveryListEmpty();
  const seen = new Map<string, DiscoveryEntry>();
  for (const item of items) {
    if (item === '') throw SdkErrors.discoveryListItemEmpty({ list });
    for (const addr of expandDiscoveryRange(item)) {
      if (!seen.has(addr)) seen.set(addr, parseDiscoveryEntry(addr));
    }
  }
  return [...seen.values()];
}
