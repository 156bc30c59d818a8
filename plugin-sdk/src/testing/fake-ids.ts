import { createHash } from 'node:crypto';

/** A deterministic 64-hex ID, so tests can name containers and images and still get real-looking IDs. */
export function fakeId(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}
