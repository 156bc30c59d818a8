import { type Filter, type Node } from '@swarm/plugin-sdk';
import { conditionWithSoftness, createExpressionFilter, type Expression } from '@swarm/plugin-sdk/helpers';
import { NodeIdentities } from './node-identities.js';

function nodeMatches(identities: NodeIdentities, expression: Expression, node: Node): boolean {
  switch (expression.key) {
    case 'container':
      return expression.matches(identities.containers(node));
    case 'image':
      return expression.matches(identities.images(node));
    default:
      return expression.matches(identities.labels(node, expression.key));
  }
}

/**
 * Swarm classic's affinity filter: `container==x` (a container ID or name on the node),
 * `image==x` (an image there), any other key a label of a container there; `!=` means none.
 */
export function createAffinityFilter(): Filter {
  const identities = new NodeIdentities();
  return createExpressionFilter({
    filter: 'affinity',
    directive: 'affinities',
    condition: conditionWithSoftness,
    matches: (expression, node) => nodeMatches(identities, expression, node),
  });
}
