import { type Node, type NodeTable, type PlacementRequest, type RankedNode, type Strategy, type StrategyOptions } from '@swarm/plugin-sdk';
import { rankByWeight, readResourceWeights, type ResourceWeights } from '@swarm/plugin-sdk/helpers';

/** Swarm classic's spread: the least reserved node first (lower weight wins; healthier nodes weigh less). */
export class SpreadStrategy implements Strategy {
  readonly name = 'spread';
  private readonly weights: ResourceWeights;

  /** Options: `cpuWeight`, `memoryWeight` (default 1 each, as in Swarm classic). */
  constructor(options: StrategyOptions = {}) {
    this.weights = readResourceWeights(this.name, options);
  }

  rank(request: PlacementRequest, nodes: readonly Node[], limit: number | undefined, table: NodeTable): RankedNode[] {
    return rankByWeight(request, nodes, { healthFactor: -10, weights: this.weights, lowestFirst: true }, limit, table);
  }
}
