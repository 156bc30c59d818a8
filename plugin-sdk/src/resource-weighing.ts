import { ErrorCodes, SwarmError } from './errors.js';
import type { Node } from './node.js';
import type { PlacementRequest, RankedNode, StrategyOptions } from './scheduler.js';

/** Swarm classic's text when no node can hold the requested CPUs and memory. */
export const NO_RESOURCES_MESSAGE = 'no resources available to schedule container';

export const noResources = (): SwarmError => new SwarmError(ErrorCodes.NO_RESOURCES, NO_RESOURCES_MESSAGE);

/** How much the CPU and the memory score count in a node's weight (Swarm classic: 1 and 1). */
export interface ResourceWeights {
  readonly cpu: number;
  readonly memory: number;
}

export const EQUAL_WEIGHTS: ResourceWeights = Object.freeze({ cpu: 1, memory: 1 });

export interface WeighingOptions {
  /** Added per point of `healthIndicator()`: spread uses −10, binpack +10 (Swarm classic). */
  readonly healthFactor: number;
  readonly weights?: ResourceWeights;
}

interface WeightedNode {
  readonly node: Node;
  readonly weight: number;
  readonly containers: number;
  readonly order: number;
}

/** Reservation share in percent after placing `requested`, truncated as Swarm's int64 maths does. */
function score(used: number, requested: number, total: number): number {
  return requested > 0 ? Math.trunc(((used + requested) * 100) / total) : 100;
}

/**
 * Swarm classic's weighted_node.go: skip nodes smaller than the request, score CPU and memory
 * as `(used + requested) * 100 / total` (100 when nothing is asked), drop nodes over 100, and
 * add the health term. Returns the nodes ranked by weight ascending (`lowestFirst`) or
 * descending, ties broken by container count in the same direction.
 */
export function rankByWeight(
  request: PlacementRequest,
  nodes: readonly Node[],
  options: WeighingOptions & { readonly lowestFirst: boolean },
): RankedNode[] {
  const weights = options.weights ?? EQUAL_WEIGHTS;
  const weighted: WeightedNode[] = [];
  nodes.forEach((node, order) => {
    const totalMemory = node.totalMemory();
    const totalCpus = node.totalCpus();
    if (totalMemory < request.memory || totalCpus < request.cpus) return;
    const cpuScore = score(node.usedCpus(), request.cpus, totalCpus);
    const memoryScore = score(node.usedMemory(), request.memory, totalMemory);
    if (cpuScore > 100 || memoryScore > 100) return;
    const weight = weights.cpu * cpuScore + weights.memory * memoryScore + options.healthFactor * node.healthIndicator();
    weighted.push({ node, weight, containers: node.containers().length, order });
  });
  if (weighted.length === 0) throw noResources();
  const direction = options.lowestFirst ? 1 : -1;
  weighted.sort(
    (a, b) => direction * (a.weight - b.weight) || direction * (a.containers - b.containers) || a.order - b.order,
  );
  return weighted.map(({ node, weight }) => ({ node, score: weight }));
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
      throw new SwarmError(ErrorCodes.CONFIG_INVALID, `strategy "${strategy}": unknown option "${key}"; known options: ${known.join(', ')}`);
    }
  }
  const cpu = readWeight(strategy, options, 'cpuWeight');
  const memory = readWeight(strategy, options, 'memoryWeight');
  if (cpu + memory === 0) {
    throw new SwarmError(ErrorCodes.CONFIG_INVALID, `strategy "${strategy}": cpuWeight and memoryWeight cannot both be 0`);
  }
  return { cpu, memory };
}

function readWeight(strategy: string, options: StrategyOptions, key: string): number {
  const raw = options[key];
  if (raw === undefined) return 1;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value < 0) {
    throw new SwarmError(
      ErrorCodes.CONFIG_INVALID,
      `strategy "${strategy}": option ${key} must be a number >= 0, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}
