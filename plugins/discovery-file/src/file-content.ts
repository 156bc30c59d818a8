import { ErrorCodes, SwarmError, expandDiscoveryRange, parseDiscoveryEntry, type DiscoveryEntry } from '@swarm/plugin-sdk';

/** One address (or range) per line; blank lines and `#` comments are skipped. */
export function parseFileContent(content: string, path: string): DiscoveryEntry[] {
  const seen = new Map<string, DiscoveryEntry>();
  content.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      for (const addr of expandDiscoveryRange(line)) {
        if (!seen.has(addr)) seen.set(addr, parseDiscoveryEntry(addr));
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SwarmError(ErrorCodes.DISCOVERY_INVALID, `${path} line ${index + 1}: ${reason}`, { cause: error });
    }
  });
  return [...seen.values()];
}
