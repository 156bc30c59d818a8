import { conditionWithSoftness, createExpressionFilter, type Expression, type Filter, type Node } from '@swarm/plugin-sdk';

/**
 * Every key names nodes: the value is a `|`-separated list of node names, compared exactly.
 * Swarm classic ignored the operator; here `!=` excludes the listed nodes.
 */
function nodeMatches(expression: Expression, node: Node): boolean {
  const listed = expression.value.split('|').includes(node.name);
  return expression.operator === '==' ? listed : !listed;
}

/** Swarm classic's whitelist filter: `-e whitelist:node==node1|node2`. */
export function createWhitelistFilter(): Filter {
  return createExpressionFilter({ filter: 'whitelist', directive: 'whitelists', condition: conditionWithSoftness, matches: nodeMatches });
}
