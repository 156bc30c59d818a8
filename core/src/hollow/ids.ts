import { createHash, randomFillSync } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Random bytes for IDs, filled 4 kB at a time: a system call per ID cost more than the rest of a create. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** A 64-hex-digit object ID, as the engine gives containers. */
export function randomHexId(): string {
  if (poolOffset + 32 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 32;
  return pool.toString('hex', poolOffset - 32, poolOffset);
}

/** A stable 64-hex-digit ID derived from a seed (networks, images), so restarts keep IDs. */
export const stableHexId = (seed: string): string => createHash('sha256').update(seed).digest('hex');

/** An engine ID in dockerd's key-fingerprint format (12 groups of 4 base32 characters), stable per seed. */
export function engineIdFor(seed: string): string {
  const digest = createHash('sha512').update(seed).digest();
  const groups: string[] = [];
  for (let group = 0; group < 12; group++) {
    let chars = '';
    for (let i = 0; i < 4; i++) chars += BASE32[(digest[group * 4 + i] ?? 0) & 31];
    groups.push(chars);
  }
  return groups.join(':');
}

const ADJECTIVES = [
  'admiring',
  'brave',
  'clever',
  'dreamy',
  'eager',
  'focused',
  'gifted',
  'happy',
  'jolly',
  'keen',
  'lucid',
  'modest',
  'nifty',
  'quirky',
  'serene',
  'vibrant',
];
const SURNAMES = [
  'albattani',
  'bohr',
  'curie',
  'darwin',
  'euler',
  'fermi',
  'galileo',
  'hopper',
  'kepler',
  'lovelace',
  'noether',
  'pascal',
  'ritchie',
  'turing',
  'wozniak',
  'yonath',
];

/** A name in the engine's `adjective_surname` style for containers created without one. */
export function generatedName(taken: (name: string) => boolean): string {
  const pick = (list: readonly string[]): string => list[Math.floor(Math.random() * list.length)] ?? 'x';
  const base = `${pick(ADJECTIVES)}_${pick(SURNAMES)}`;
  if (!taken(base)) return base;
  for (let suffix = 0; ; suffix++) if (!taken(`${base}${suffix}`)) return `${base}${suffix}`;
}
