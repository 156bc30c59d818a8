import { type Node, type PlacementRequest, type RankedNode, type Strategy, type StrategyOptions } from '@swarm/plugin-sdk';
import { RandomErrors } from './errors.js';

/** mulberry32: a tiny seeded generator, so a `seed` option makes placements reproducible. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function readSeed(options: StrategyOptions): number | undefined {
  for (const key of Object.keys(options)) {
    if (key !== 'seed') throw RandomErrors.unknownOption({ key });
  }
  const raw = options['seed'];
  if (raw === undefined) return undefined;
  const seed = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isInteger(seed)) throw RandomErrors.seedNotInteger({ raw });
  return seed;
}

/** Swarm classic's random: a uniform shuffle of the candidates, resources not considered. */
export class RandomStrategy implements Strategy {
  readonly name = 'random';
  private readonly random: () => number;

  /** Options: `seed` (an integer) for a reproducible sequence. */
  constructor(options: StrategyOptions = {}) {
    const seed = readSeed(options);
    this.random = seed === undefined ? Math.random : seededRandom(seed);
  }

  rank(_request: PlacementRequest, nodes: readonly Node[], limit?: number): RankedNode[] {
    const shuffled = [...nodes];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      const swapped = shuffled[i]!;
      shuffled[i] = shuffled[j]!;
      shuffled[j] = swapped;
    }
    // The whole shuffle still runs, so a seeded sequence is the same with or without a limit.
    const length = limit === undefined ? shuffled.length : Math.min(shuffled.length, Math.max(1, Math.floor(limit)));
    const ranked: RankedNode[] = new Array(length);
    for (let index = 0; index < length; index++) ranked[index] = { node: shuffled[index]!, score: index };
    return ranked;
  }
}
