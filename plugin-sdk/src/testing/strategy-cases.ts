import { NodeColumns } from '../helpers/node-columns.js';
import { deepStrictEqual, fail, match, strictEqual } from 'node:assert/strict';
import type { Node } from '../node.js';
import type { Strategy } from '../scheduler.js';
import type { ContainerConfig } from '../types/docker.js';
import { runChecks, type Tester } from './checks.js';
import { placementRequest } from './evaluate.js';
import type { RunSpec } from './run-config.js';

export interface StrategyCase {
  readonly name?: string;
  readonly config: ContainerConfig | RunSpec;
  readonly nodes: readonly Node[];
  /** Expected ranking, best first, by node name (nodes left out must be absent). */
  readonly order?: readonly string[];
  /** Expected best node only. */
  readonly first?: string;
  /** Expected score per node name. */
  readonly scores?: Readonly<Record<string, number>>;
  /** `rank` must throw an error with this message. */
  readonly throws?: string | RegExp;
}

function runCase(strategy: Strategy, testCase: StrategyCase): void {
  const request = placementRequest(testCase.config);
  let ranked;
  try {
    ranked = strategy.rank(request, testCase.nodes, undefined, NodeColumns.of(testCase.nodes));
  } catch (error) {
    if (testCase.throws === undefined) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (typeof testCase.throws === 'string') strictEqual(message, testCase.throws);
    else match(message, testCase.throws);
    return;
  }
  if (testCase.throws !== undefined) fail(`expected rank to throw ${String(testCase.throws)}`);
  const names = ranked.map((entry) => entry.node.name);
  if (testCase.order) deepStrictEqual(names, [...testCase.order], 'ranking');
  if (testCase.first !== undefined) strictEqual(names[0], testCase.first, 'best node');
  for (const [name, score] of Object.entries(testCase.scores ?? {})) {
    strictEqual(ranked.find((entry) => entry.node.name === name)?.score, score, `score of ${name}`);
  }
}

/** Table-driven strategy tests: a config, nodes, and the ranking (or refusal) expected. */
export function runStrategyCases(strategy: Strategy, cases: readonly StrategyCase[], tester?: Tester): void {
  runChecks(
    cases.map((testCase, index) => ({
      name: testCase.name ?? `${strategy.name} case ${index + 1}`,
      run: () => runCase(strategy, testCase),
    })),
    tester,
  );
}
