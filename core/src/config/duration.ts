import { parseDuration as parseGoDuration } from '@swarm/plugin-sdk/helpers';

/**
 * Seconds in a Go-style duration (`30s`, `1m30s`, `500ms`, `-1s`), as Swarm classic's flags read
 * them; a number is already seconds. Throws INVALID_ARGUMENT with Go's wording otherwise.
 */
export function parseDuration(input: string | number): number {
  return typeof input === 'number' ? input : parseGoDuration(input) / 1000;
}
