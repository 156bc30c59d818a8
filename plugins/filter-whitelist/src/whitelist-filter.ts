import { conditionWithSoftness, createExpressionFilter, type Expression, type Filter, type Node } from '@swarm/plugin-sdk';

/**
 * Every key names nodes: the value is a `|`-separated list of node names, compared exactly.
 * Swarm classic ignored the operator; here `!=` excludes the listed nodes.
 */
function nodeMatches(expression: Expression, node: Node): boolean {
  const listed = namesOf(expression).has(node.name);
  return expression.operator === '==' ? listed : !listed;
}

// Expressions are parsed per request; split each one's names once, not once per node.
const names = new WeakMap<Expression, ReadonlySet<string>>();

function namesOf(expression: Expression): ReadonlySet<string> {
  let set = names.get(expression);
  if (set === undefined) {
    set = new Set(expression.value.split('|'));
    names.set(expression, set);
  }
  return set;
}

/** Swarm classic's whitelist filter: `-e whitelist:node==node1|node2`. */
export function createWhitelistFilter(): Filter {
  return createExpressionFilter({ filter: 'whitelist', directive: 'whitelists', condition: conditionWithSoftness, matches: nodeMatches });
}
