import { type Node, type NodeTable, type PlacementRequest, type RankedNode, type Strategy, type StrategyOptions } from '@swarm/plugin-sdk';
import { rankByWeight, readResourceWeights, type ResourceWeights } from '@swarm/plugin-sdk/helpers';

/** Swarm classic's binpack: the most reserved node that still fits first (higher weight wins; healthier nodes weigh more). */
export class BinpackStrategy implements Strategy {
  private readonly weights: ResourceWeights;

  /** Options: `cpuWeight`, `memoryWeight` (default 1 each, as in Swarm classic). */
  constructor(
    options: StrategyOptions = {},
    readonly name = 'binpack',
  ) {
    this.weights = readResourceWeights(name, options);
  }

  rank(request: PlacementRequest, nodes: readonly Node[], limit: number | undefined, table: NodeTable): RankedNode[] {
    return rankByWeight(request, nodes, { healthFactor: 10, weights: this.weights, lowestFirst: false }, limit, table);
  }
}
