import { deepStrictEqual, fail, match, strictEqual } from 'node:assert/strict';
import { NodeColumns } from '../helpers/node-columns.js';
import type { Node } from '../node.js';
import type { Filter } from '../scheduler.js';
import type { ContainerConfig } from '../types/docker.js';
import { runChecks, type Tester } from './checks.js';
import { evaluateFilter, placementRequest } from './evaluate.js';
import type { RunSpec } from './run-config.js';

export interface FilterCase {
  /** Test name; defaults to a description of the config. */
  readonly name?: string;
  /** A create config, or `docker run` style flags. */
  readonly config: ContainerConfig | RunSpec;
  readonly nodes: readonly Node[];
  /** false for the pipeline's second pass, without soft expressions. Default true. */
  readonly soft?: boolean;
  /** Names of the nodes expected to pass, in node order. */
  readonly pass?: readonly string[];
  /** Expected reason per failing node. */
  readonly reasons?: Readonly<Record<string, string>>;
  /** Expected `conditions` of the prepared run. */
  readonly conditions?: readonly string[];
  /** Expected `usesSoft` of the prepared run. */
  readonly usesSoft?: boolean;
  /** `prepare` must return undefined (nothing to check). */
  readonly inactive?: boolean;
  /** `prepare` must throw an error with this message. */
  readonly throws?: string | RegExp;
}

function caseName(filter: Filter, testCase: FilterCase, index: number): string {
  return testCase.name ?? `${filter.name} case ${index + 1}: ${JSON.stringify(testCase.config)}`;
}

function runCase(filter: Filter, testCase: FilterCase): void {
  const request = placementRequest(testCase.config, { soft: testCase.soft ?? true });
  if (testCase.throws !== undefined) {
    try {
      filter.prepare(request, NodeColumns.of(testCase.nodes));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (typeof testCase.throws === 'string') strictEqual(message, testCase.throws);
      else match(message, testCase.throws);
      return;
    }
    fail(`expected prepare to throw ${String(testCase.throws)}`);
  }
  const outcome = evaluateFilter(filter, request, testCase.nodes);
  if (testCase.inactive !== undefined) strictEqual(outcome.run === undefined, testCase.inactive, 'inactive (prepare returned undefined)');
  if (testCase.pass) deepStrictEqual(outcome.passing, [...testCase.pass], 'nodes passing');
  if (testCase.reasons) {
    for (const [name, reason] of Object.entries(testCase.reasons)) strictEqual(outcome.reasons[name], reason, `reason for ${name}`);
  }
  if (testCase.conditions) deepStrictEqual([...(outcome.run?.conditions ?? [])], [...testCase.conditions], 'conditions');
  if (testCase.usesSoft !== undefined) strictEqual(outcome.run?.usesSoft ?? false, testCase.usesSoft, 'usesSoft');
}

/**
 * Table-driven filter tests (ESLint RuleTester style): each case gives a config, nodes built
 * with `fakeNode`, and what must pass, with which reasons and conditions.
 */
export function runFilterCases(filter: Filter, cases: readonly FilterCase[], tester?: Tester): void {
  runChecks(
    cases.map((testCase, index) => ({ name: caseName(filter, testCase, index), run: () => runCase(filter, testCase) })),
    tester,
  );
}
