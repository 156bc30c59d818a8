import { type Filter, type NodeTable } from '@swarm/plugin-sdk';
import { conditionWithSoftness, createExpressionFilter, type Expression, type ExpressionMatcher } from '@swarm/plugin-sdk/helpers';

/**
 * Every key names nodes: the value is a `|`-separated list of node names, compared exactly.
 * Swarm classic ignored the operator; here `!=` excludes the listed nodes.
 */
function nodeMatcher(expression: Expression, table: NodeTable): ExpressionMatcher {
  const listed = new Set(expression.value.split('|'));
  const names = table.names;
  const wanted = expression.operator === '==';
  return (_node, row) => listed.has(names[row]!) === wanted;
}

/** Swarm classic's whitelist filter: `-e whitelist:node==node1|node2`. */
export function createWhitelistFilter(): Filter {
  return createExpressionFilter({ filter: 'whitelist', directive: 'whitelists', condition: conditionWithSoftness, matcher: nodeMatcher });
}
