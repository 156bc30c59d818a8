import { formatExpression, parseExpressions, type Expression } from './expressions.js';
import type { Node } from '../node.js';
import type { NodeTable } from '../node-table.js';
import { SdkErrors } from '../errors.js';
import { fail, PASS, type Filter, type FilterRun, type PlacementRequest } from '../scheduler.js';
import { swarmDirectives, type SwarmDirective } from './swarm-labels.js';

export interface ExpressionFilterSpec {
  /** The filter's name, which starts each node's failure reason (`constraint storage==ssd`). */
  readonly filter: string;
  /** Which swarm label list holds the expressions. */
  readonly directive: SwarmDirective;
  /** How Swarm classic lists an expression in its "following conditions" error. */
  readonly condition: (expression: Expression) => string;
  /**
   * Whether the node satisfies the expression (give this or `matcher`). The host keeps each
   * node's answer until that node hands out a new snapshot (NodeTable.derived), so it may depend only on
   * the node and the expression.
   */
  readonly matches?: (expression: Expression, node: Node) => boolean;
  /**
   * The test for one expression, built once per request, which may read
   * the facts of row `row` in `table` instead of the node (much faster at thousands of nodes).
   */
  readonly matcher?: (expression: Expression, table: NodeTable) => ExpressionMatcher;
}

/** Whether the node in `row` satisfies one prepared expression. */
export type ExpressionMatcher = (node: Node, row: number) => boolean;

/**
 * A `matches` spec's answers are kept per node in the table (until the node changes), so the
 * same expression in later requests reads a column instead of every node's containers.
 */
function matcherOf(spec: ExpressionFilterSpec, expression: Expression, table: NodeTable | undefined): ExpressionMatcher {
  const matches = spec.matches;
  if (matches === undefined) {
    if (table === undefined) throw SdkErrors.expressionFilterNeedsTable({ filter: spec.filter });
    return spec.matcher!(expression, table);
  }
  if (table === undefined) return (node) => matches(expression, node);
  const key = `${spec.filter}:${formatExpression(expression)}`;
  const answer = table.derived(key, (node) => matches(expression, node));
  return (_node, row) => answer(row);
}

/** `key==value`, with the soft marker kept (`key==~value`), for per-node reasons. */
function describeExpression(expression: Expression): string {
  return `${expression.key}${expression.operator}${expression.soft ? '~' : ''}${expression.value}`;
}

/** Swarm classic's affinity/whitelist listing: `key==value (soft=false)`. */
export function conditionWithSoftness(expression: Expression): string {
  return `${formatExpression(expression)} (soft=${expression.soft})`;
}

/**
 * The FilterRun shared by expression filters (constraint, affinity, whitelist): parses the
 * request's expressions (throwing Swarm's texts for invalid ones), skips soft ones on the second
 * pass, and fails a node on its first unsatisfied expression.
 */
function prepareExpressionRun(spec: ExpressionFilterSpec, request: PlacementRequest, table?: NodeTable): FilterRun | undefined {
  const all = parseExpressions(swarmDirectives(request.config, spec.directive));
  if (all.length === 0) return undefined;
  const active = request.soft ? all : all.filter((expression) => !expression.soft);
  // Built once per request: refused nodes share their expression's verdict.
  const failures = active.map((expression) => fail(`${spec.filter} ${describeExpression(expression)}`, !expression.soft));
  const matchers = active.map((expression) => matcherOf(spec, expression, table));
  return {
    conditions: all.map(spec.condition),
    usesSoft: active.some((expression) => expression.soft),
    check(node, row) {
      for (let i = 0; i < matchers.length; i++) {
        if (!matchers[i]!(node, row)) return failures[i]!;
      }
      return PASS;
    },
  };
}

/** A whole expression filter from its spec: `prepare` is `prepareExpressionRun`. */
export function createExpressionFilter(spec: ExpressionFilterSpec): Filter {
  if (!spec.matches === !spec.matcher) {
    throw SdkErrors.expressionFilterSpec({ filter: spec.filter });
  }
  return Object.freeze({
    name: spec.filter,
    prepare: (request: PlacementRequest, table: NodeTable) => prepareExpressionRun(spec, request, table),
  });
}
