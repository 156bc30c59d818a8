/**
 * Orders for Swarm classic's weighted nodes: by weight, then container count (both ascending
 * or both descending), then node index. `sortByWeight` orders every kept node; `selectBest`
 * keeps only the best few in one pass with the same order, touching no per-node arrays.
 */

/**
 * Order node indexes by weight, then container count, then index. With integral weights (always,
 * unless weight options are fractional) the three are packed into one exact number and sorted
 * natively, several times faster than a comparator.
 */
export function sortByWeight(indexes: Uint32Array, weight: Float64Array, containers: Uint32Array, lowestFirst: boolean): ArrayLike<number> {
  const direction = lowestFirst ? 1 : -1;
  let min = Infinity;
  let max = -Infinity;
  let maxContainers = 0;
  let integral = true;
  for (const i of indexes) {
    const w = weight[i]!;
    min = Math.min(min, w);
    max = Math.max(max, w);
    maxContainers = Math.max(maxContainers, containers[i]!);
    integral &&= Number.isInteger(w);
  }
  const slots = weight.length;
  const spanContainers = maxContainers + 1;
  if (integral && (max - min + 1) * spanContainers * slots < Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(indexes.length);
    for (let k = 0; k < indexes.length; k++) {
      const i = indexes[k]!;
      const primary = lowestFirst ? weight[i]! - min : max - weight[i]!;
      const secondary = lowestFirst ? containers[i]! : maxContainers - containers[i]!;
      keys[k] = (primary * spanContainers + secondary) * slots + i;
    }
    keys.sort();
    for (let k = 0; k < keys.length; k++) keys[k] = keys[k]! % slots;
    return keys;
  }
  return Array.from(indexes).sort(
    (a, b) => direction * (weight[a]! - weight[b]!) || direction * (containers[a]! - containers[b]!) || a - b,
  );
}

/** The best few entries so far, best first (few: a sorted insert beats a heap here). */
export interface BestList {
  readonly index: number[];
  readonly weight: number[];
  readonly containers: number[];
}

const worse = (a: number, b: number, lowestFirst: boolean): boolean => (lowestFirst ? a > b : a < b);

/**
 * Offer node `index` with `weight` and its container count to a list of at most `size` entries.
 * Nodes must be offered in increasing index order, so a later node that ties on weight and
 * containers never displaces an earlier one.
 */
export function offerBest(best: BestList, size: number, lowestFirst: boolean, index: number, weight: number, containers: number): void {
  const count = best.index.length;
  if (count === size) {
    // Most offers lose to the last entry (or tie with it, which keeps the earlier node): decided here.
    const last = best.weight[count - 1]!;
    if (worse(weight, last, lowestFirst) || (weight === last && !worse(best.containers[count - 1]!, containers, lowestFirst))) return;
  }
  let at = count;
  while (at > 0) {
    const w = best.weight[at - 1]!;
    if (!(worse(w, weight, lowestFirst) || (w === weight && worse(best.containers[at - 1]!, containers, lowestFirst)))) break;
    at--;
  }
  if (at >= size) return;
  // Shift the entries from `at` down by one (the last falls off when the list is full).
  for (let j = Math.min(count, size - 1); j > at; j--) {
    best.index[j] = best.index[j - 1]!;
    best.weight[j] = best.weight[j - 1]!;
    best.containers[j] = best.containers[j - 1]!;
  }
  best.index[at] = index;
  best.weight[at] = weight;
  best.containers[at] = containers;
}
