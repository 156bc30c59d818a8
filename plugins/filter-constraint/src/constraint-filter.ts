import { formatExpression, createExpressionFilter, type Expression, type Filter, type Node } from '@swarm/plugin-sdk';

/** `node` matches the node's ID or name; any other key matches that engine label ("" when absent). */
function nodeMatches(expression: Expression, node: Node): boolean {
  if (expression.key === 'node') {
    // `matches([node.id, node.name])` without an array per node: == wants either, != neither.
    const id = expression.matchesOne(node.id);
    return expression.operator === '==' ? id || expression.matchesOne(node.name) : id && expression.matchesOne(node.name);
  }
  return expression.matchesOne(node.labels()[expression.key] ?? '');
}

/** Swarm classic's constraint filter: `-e constraint:key==value` against node names and labels. */
export function createConstraintFilter(): Filter {
  return createExpressionFilter({ filter: 'constraint', directive: 'constraints', condition: formatExpression, matches: nodeMatches });
}
