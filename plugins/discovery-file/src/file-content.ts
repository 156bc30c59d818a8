import type { DiscoveryEntry } from '@swarm/plugin-sdk';
import { expandDiscoveryRange, parseDiscoveryEntry } from '@swarm/plugin-sdk/helpers';
import { FileDiscoveryErrors } from './errors.js';

/**
 * The address part of one line of a cluster file: as Swarm classic reads it, everything from the
 * first `#` to the end of the line is a comment, and surrounding whitespace does not count.
 */
function addressOf(line: string): string {
  const hash = line.indexOf('#');
  return (hash === -1 ? line : line.slice(0, hash)).trim();
}

/** One address (or range) per line; blank lines, comment lines and inline `# comments` are skipped. */
export function parseFileContent(content: string, path: string): DiscoveryEntry[] {
  const seen = new Map<string, DiscoveryEntry>();
  content.split('\n').forEach((raw, index) => {
    const line = addressOf(raw);
    if (line === '') return;
    try {
      for (const addr of expandDiscoveryRange(line)) {
        if (!seen.has(addr)) seen.set(addr, parseDiscoveryEntry(addr));
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw FileDiscoveryErrors.lineInvalid({ path, line: index + 1, reason }, { cause: error });
    }
  });
  return [...seen.values()];
}
