import { formatExpression, parseExpressions, type Expression } from './expressions.js';
import type { Node } from './node.js';
import { fail, PASS, type Filter, type FilterRun, type PlacementRequest } from './scheduler.js';
import { swarmDirectives, type SwarmDirective } from './swarm-labels.js';

export interface ExpressionFilterSpec {
  /** The filter's name, which starts each node's failure reason (`constraint storage==ssd`). */
  readonly filter: string;
  /** Which swarm label list holds the expressions. */
  readonly directive: SwarmDirective;
  /** How Swarm classic lists an expression in its "following conditions" error. */
  readonly condition: (expression: Expression) => string;
  /** Whether the node satisfies the expression. */
  readonly matches: (expression: Expression, node: Node) => boolean;
}

/** `key==value`, with the soft marker kept (`key==~value`), for per-node reasons. */
export function describeExpression(expression: Expression): string {
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
export function prepareExpressionRun(spec: ExpressionFilterSpec, request: PlacementRequest): FilterRun | undefined {
  const all = parseExpressions(swarmDirectives(request.config, spec.directive));
  if (all.length === 0) return undefined;
  const active = request.soft ? all : all.filter((expression) => !expression.soft);
  // Built once per request: refused nodes share their expression's verdict.
  const failures = active.map((expression) => fail(`${spec.filter} ${describeExpression(expression)}`, !expression.soft));
  return {
    conditions: all.map(spec.condition),
    usesSoft: active.some((expression) => expression.soft),
    check(node) {
      for (let i = 0; i < active.length; i++) {
        if (!spec.matches(active[i]!, node)) return failures[i]!;
      }
      return PASS;
    },
  };
}

/** A whole expression filter from its spec: `prepare` is `prepareExpressionRun`. */
export function createExpressionFilter(spec: ExpressionFilterSpec): Filter {
  return Object.freeze({ name: spec.filter, prepare: (request: PlacementRequest) => prepareExpressionRun(spec, request) });
}
