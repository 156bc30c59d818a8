import { type Filter, type NodeTable } from '@swarm/plugin-sdk';
import { formatExpression, createExpressionFilter, type Expression, type ExpressionMatcher } from '@swarm/plugin-sdk/helpers';

/** `node` matches the node's ID or name; any other key matches that engine label ("" when absent). */
function nodeMatcher(expression: Expression, table: NodeTable): ExpressionMatcher {
  if (expression.key === 'node') {
    const { ids, names } = table;
    // `matches([id, name])` without an array per node: == wants either, != neither.
    return expression.operator === '=='
      ? (_node, row) => expression.matchesOne(ids[row]!) || expression.matchesOne(names[row]!)
      : (_node, row) => expression.matchesOne(ids[row]!) && expression.matchesOne(names[row]!);
  }
  const values = table.label(expression.key);
  return (_node, row) => expression.matchesOne(values[row] ?? '');
}

/** Swarm classic's constraint filter: `-e constraint:key==value` against node names and labels. */
export function createConstraintFilter(): Filter {
  return createExpressionFilter({ filter: 'constraint', directive: 'constraints', condition: formatExpression, matcher: nodeMatcher });
}
