import { type Filter, type Node } from '@swarm/plugin-sdk';
import { conditionWithSoftness, createExpressionFilter, type Expression } from '@swarm/plugin-sdk/helpers';
import { containerIdentities, containerLabels, imageIdentities } from './node-identities.js';

function nodeMatches(expression: Expression, node: Node): boolean {
  switch (expression.key) {
    case 'container':
      return expression.matches(containerIdentities(node.containers()));
    case 'image':
      return expression.matches(imageIdentities(node.images()));
    default:
      return expression.matches(containerLabels(node.containers(), expression.key));
  }
}

/**
 * Swarm classic's affinity filter: `container==x` (a container ID or name on the node),
 * `image==x` (an image there), any other key a label of a container there; `!=` means none.
 */
export function createAffinityFilter(): Filter {
  return createExpressionFilter({ filter: 'affinity', directive: 'affinities', condition: conditionWithSoftness, matches: nodeMatches });
}
