import { CoreErrors } from '../errors.js';

const MEMORY_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** Docker's RAMInBytes: `512m`, `1g`, `1024` (bytes). */
export function parseMemory(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([bkmgt]?)b?$/i.exec(value.trim());
  if (!match) throw CoreErrors.cliSizeInvalid({ value });
  return Math.round(Number(match[1]) * MEMORY_UNITS[match[2]!.toLowerCase()]!);
}
