import { SdkErrors } from '../errors.js';
import type { Node } from '../node.js';
import type { NodeTable } from '../node-table.js';
import { NodeColumns } from './node-columns.js';
import { offerBest, sortByWeight, type BestList } from './resource-weighing-order.js';
import type { PlacementRequest, RankedNode, StrategyOptions } from '../scheduler.js';

/** How much the CPU and the memory score count in a node's weight (Swarm classic: 1 and 1). */
export interface ResourceWeights {
  readonly cpu: number;
  readonly memory: number;
}

const EQUAL_WEIGHTS: ResourceWeights = Object.freeze({ cpu: 1, memory: 1 });

export interface WeighingOptions {
  /** Added per point of `healthIndicator()`: spread uses −10, binpack +10 (Swarm classic). */
  readonly healthFactor: number;
  readonly weights?: ResourceWeights;
}

/** Reservation share in percent after placing `requested`, truncated as Swarm's int64 maths does. */
function score(used: number, requested: number, total: number): number {
  return requested > 0 ? Math.trunc(((used + requested) * 100) / total) : 100;
}

/** Row `row`'s weight for the request, or NaN when it cannot hold it (too small, or over 100). */
function weigh(table: NodeTable, row: number, request: PlacementRequest, weights: ResourceWeights, healthFactor: number): number {
  const totalMemory = table.totalMemory[row]!;
  const totalCpus = table.totalCpus[row]!;
  if (totalMemory < request.memory || totalCpus < request.cpus) return Number.NaN;
  const cpuScore = score(table.usedCpus[row]!, request.cpus, totalCpus);
  const memoryScore = score(table.usedMemory[row]!, request.memory, totalMemory);
  if (cpuScore > 100 || memoryScore > 100) return Number.NaN;
  return weights.cpu * cpuScore + weights.memory * memoryScore + healthFactor * table.healthIndicator[row]!;
}

/** Up to this many best nodes are picked in one pass; longer rankings sort every node. */
const MAX_SELECTED = 64;

/**
 * Swarm classic's weighted_node.go: skip nodes smaller than the request, score CPU and memory
 * as `(used + requested) * 100 / total` (100 when nothing is asked), drop nodes over 100, and
 * add the health term. Returns the nodes ranked by weight ascending (`lowestFirst`) or
 * descending, ties broken by container count in the same direction, then by position in
 * `nodes`. With a small `limit`, only that many best nodes are returned (in the same order).
 * The facts are read from `table` (row `i` for `nodes[i]`), or from the nodes when none is given.
 */
export function rankByWeight(
  request: PlacementRequest,
  nodes: readonly Node[],
  options: WeighingOptions & { readonly lowestFirst: boolean },
  limit = Number.POSITIVE_INFINITY,
  table: NodeTable = NodeColumns.of(nodes),
): RankedNode[] {
  const size = Math.max(1, Math.floor(limit));
  return size <= MAX_SELECTED && size < nodes.length
    ? selectBest(request, nodes, table, options, size)
    : rankAll(request, nodes, table, options, size);
}

type RankOptions = WeighingOptions & { readonly lowestFirst: boolean };

function selectBest(request: PlacementRequest, nodes: readonly Node[], table: NodeTable, options: RankOptions, size: number): RankedNode[] {
  const weights = options.weights ?? EQUAL_WEIGHTS;
  const best: BestList = { index: [], weight: [], containers: [] };
  if (request.cpus === 0 && request.memory === 0) {
    offerUnreserved(best, table, nodes.length, weights, options, size);
  } else {
    for (let i = 0; i < nodes.length; i++) {
      const weight = weigh(table, i, request, weights, options.healthFactor);
      if (!Number.isNaN(weight)) offerBest(best, size, options.lowestFirst, i, weight, table.containerCount[i]!);
    }
  }
  if (best.index.length === 0) throw SdkErrors.noResources();
  return best.index.map((index, rank) => ({ node: nodes[index]!, score: best.weight[rank]! }));
}

/**
 * `weigh` for a request that reserves nothing: every node holds it and scores 100 on both
 * resources, so only the health term tells nodes apart (the same sum, in the same order, as
 * `weigh`'s). Most containers ask for no reservation, and this reads two columns instead of six.
 */
function offerUnreserved(
  best: BestList,
  table: NodeTable,
  rows: number,
  weights: ResourceWeights,
  options: RankOptions,
  size: number,
): void {
  const base = weights.cpu * 100 + weights.memory * 100;
  const { healthIndicator, containerCount } = table;
  for (let i = 0; i < rows; i++) {
    offerBest(best, size, options.lowestFirst, i, base + options.healthFactor * healthIndicator[i]!, containerCount[i]!);
  }
}

function rankAll(request: PlacementRequest, nodes: readonly Node[], table: NodeTable, options: RankOptions, size: number): RankedNode[] {
  const weights = options.weights ?? EQUAL_WEIGHTS;
  // Parallel typed arrays and an index sort: no per-node objects until the result.
  const weight = new Float64Array(nodes.length);
  const containers = new Uint32Array(nodes.length);
  const kept = new Uint32Array(nodes.length);
  let count = 0;
  for (let i = 0; i < nodes.length; i++) {
    const w = weigh(table, i, request, weights, options.healthFactor);
    if (Number.isNaN(w)) continue;
    weight[i] = w;
    containers[i] = table.containerCount[i]!;
    kept[count++] = i;
  }
  if (count === 0) throw SdkErrors.noResources();
  const order = sortByWeight(kept.subarray(0, count), weight, containers, options.lowestFirst);
  const length = Math.min(count, size);
  const ranked: RankedNode[] = new Array(length);
  for (let r = 0; r < length; r++) ranked[r] = { node: nodes[order[r]!]!, score: weight[order[r]!]! };
  return ranked;
}

/**
 * Read `cpuWeight` / `memoryWeight` strategy options (numbers, or numeric strings from
 * `--strategy-opt`), refusing anything else with CONFIG_INVALID. Unknown keys are refused too,
 * naming the ones the strategy knows (`extraKeys` are allowed and left to the caller).
 */
export function readResourceWeights(strategy: string, options: StrategyOptions, extraKeys: readonly string[] = []): ResourceWeights {
  const known = ['cpuWeight', 'memoryWeight', ...extraKeys];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw SdkErrors.strategyOptionUnknown({ strategy, key, known });
    }
  }
  const cpu = readWeight(strategy, options, 'cpuWeight');
  const memory = readWeight(strategy, options, 'memoryWeight');
  if (cpu + memory === 0) {
    throw SdkErrors.strategyWeightsZero({ strategy });
  }
  return { cpu, memory };
}

function readWeight(strategy: string, options: StrategyOptions, key: string): number {
  const raw = options[key];
  if (raw === undefined) return 1;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value < 0) {
    throw SdkErrors.strategyWeightInvalid({ strategy, key, value: raw });
  }
  return value;
}
