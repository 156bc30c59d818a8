import { deepStrictEqual, fail, ok, strictEqual } from 'node:assert/strict';
import { isSwarmError, ErrorCodes } from '../errors.js';
import type { Node } from '../node.js';
import { NodeColumns } from '../helpers/node-columns.js';
import type { Filter, FilterVerdict, PlacementRequest, Strategy } from '../scheduler.js';
import { runChecks, type Check, type Tester } from './checks.js';
import { evaluateFilter, placementRequest } from './evaluate.js';
import { fakeNode } from './fake-node.js';
import { runConfig, type RunSpec } from './run-config.js';

const GiB = 1024 ** 3;

/** A small varied cluster: labels, containers with ports and labels, an unhealthy node, images. */
function sampleNodes(): Node[] {
  return [
    fakeNode({
      name: 'node1',
      labels: { storage: 'ssd', containerslots: '5' },
      containers: [{ name: 'web', publish: ['80:80'], labels: { app: 'web' }, memory: GiB }],
      images: [{ repoTags: ['busybox:latest'] }],
    }),
    fakeNode({ name: 'node2', labels: { storage: 'disk' }, healthIndicator: 50, containers: [{ name: 'db', state: 'exited' }] }),
    fakeNode({ name: 'node3', healthy: false, cpus: 1, memory: GiB }),
  ];
}

/** Configs exercising every input a filter may read. */
const SAMPLE_CONFIGS: readonly RunSpec[] = [
  {},
  { publish: ['80:80'], constraints: ['storage==ssd'], affinities: ['container==web'] },
  { network: 'host', expose: ['80'], links: ['db:db'], volumesFrom: ['web'] },
  { constraints: ['storage==~ssd', 'node!=/node[12]/'], whitelists: ['node==node1|node2'], cpus: 1, memory: GiB },
];

function requests(): PlacementRequest[] {
  return SAMPLE_CONFIGS.flatMap((spec) => [placementRequest(spec), placementRequest(spec, { soft: false })]);
}

function assertVerdictShape(verdict: FilterVerdict): void {
  ok(typeof verdict === 'object' && verdict !== null, 'check returns a verdict object');
  ok(!(verdict instanceof Promise), 'check is synchronous');
  if (!verdict.pass) ok(typeof verdict.reason === 'string' && verdict.reason.length > 0, 'a failing verdict has a reason');
}

export interface ConformanceOptions {
  /** Nodes to run on instead of the built-in sample cluster. */
  readonly nodes?: readonly Node[];
}

/** Checks every filter must pass: shape, purity, determinism, no mutation. */
export function filterConformance(filter: Filter, tester?: Tester, options: ConformanceOptions = {}): void {
  const nodes = options.nodes ?? sampleNodes();
  const checks: Check[] = [
    { name: `${filter.name}: has a name`, run: () => ok(typeof filter.name === 'string' && /^[a-z0-9][\w.-]*$/i.test(filter.name)) },
    {
      name: `${filter.name}: returns well-formed runs and verdicts`,
      run: () => {
        for (const request of requests()) {
          const outcome = evaluateFilter(filter, request, nodes);
          if (outcome.run) ok(Array.isArray(outcome.run.conditions), 'conditions is an array');
          for (const verdict of outcome.verdicts.values()) assertVerdictShape(verdict);
        }
      },
    },
    {
      name: `${filter.name}: names every row it refuses when it names rows to check (rowsToCheck)`,
      run: () => {
        for (const request of requests()) {
          const outcome = evaluateFilter(filter, request, nodes);
          const named = outcome.run?.rowsToCheck;
          if (named === undefined) continue;
          const rows = new Set(Array.from(named));
          nodes.forEach((node, row) => {
            const refused = !outcome.verdicts.get(node.name)!.pass;
            ok(!refused || rows.has(row), `it refuses ${node.name} (row ${row}) without naming that row: the host would let the node pass`);
          });
        }
      },
    },
    {
      name: `${filter.name}: is deterministic`,
      run: () => {
        for (const request of requests()) {
          const first = evaluateFilter(filter, request, nodes);
          const second = evaluateFilter(filter, request, nodes);
          deepStrictEqual([...second.verdicts], [...first.verdicts]);
          deepStrictEqual(second.run?.conditions, first.run?.conditions);
        }
      },
    },
    {
      name: `${filter.name}: answers the same from a table kept between decisions (derived columns included)`,
      run: () => {
        const kept = new NodeColumns();
        try {
          for (const request of requests()) {
            const fresh = evaluateFilter(filter, request, nodes);
            for (let decision = 0; decision < 2; decision++) {
              deepStrictEqual([...evaluateFilter(filter, request, nodes, kept.sync(nodes)).verdicts], [...fresh.verdicts]);
            }
          }
        } finally {
          kept.release();
        }
      },
    },
    {
      name: `${filter.name}: leaves the request and the nodes untouched`,
      run: () => {
        for (const spec of SAMPLE_CONFIGS) {
          const request = placementRequest(Object.freeze(runConfig(spec)));
          const before = JSON.stringify(request.config);
          evaluateFilter(filter, Object.freeze(request), nodes);
          strictEqual(JSON.stringify(request.config), before);
        }
      },
    },
    {
      name: `${filter.name}: handles an empty cluster`,
      run: () => {
        for (const request of requests()) evaluateFilter(filter, request, []);
      },
    },
  ];
  runChecks(checks, tester);
}

export interface StrategyConformanceOptions extends ConformanceOptions {
  /** Whether the strategy refuses requests no node can hold (spread and binpack do; random does not). Default true. */
  readonly checksResources?: boolean;
}

/** Checks every strategy must pass: a ranking is a duplicate-free subset with finite scores. */
export function strategyConformance(strategy: Strategy, tester?: Tester, options: StrategyConformanceOptions = {}): void {
  const nodes = options.nodes ?? sampleNodes();
  const checks: Check[] = [
    { name: `${strategy.name}: has a name`, run: () => ok(typeof strategy.name === 'string' && strategy.name.length > 0) },
    {
      name: `${strategy.name}: ranks every node for a request without reservations`,
      run: () => {
        const ranked = strategy.rank(placementRequest({}), Object.freeze([...nodes]), undefined, NodeColumns.of(nodes));
        deepStrictEqual(new Set(ranked.map((entry) => entry.node)), new Set(nodes));
        strictEqual(ranked.length, nodes.length, 'no duplicates');
        for (const entry of ranked) ok(Number.isFinite(entry.score), 'finite score');
      },
    },
    {
      name: `${strategy.name}: ranks a subset for a reservation`,
      run: () => {
        const ranked = strategy.rank(
          placementRequest({ cpus: 1, memory: GiB }),
          Object.freeze([...nodes]),
          undefined,
          NodeColumns.of(nodes),
        );
        ok(ranked.length > 0);
        ok(
          ranked.every((entry) => nodes.includes(entry.node)),
          'only given nodes',
        );
        strictEqual(new Set(ranked.map((entry) => entry.node)).size, ranked.length, 'no duplicates');
      },
    },
  ];
  if (options.checksResources ?? true) {
    checks.push({
      name: `${strategy.name}: refuses what no node can hold with NO_RESOURCES`,
      run: () => {
        try {
          strategy.rank(placementRequest({ memory: 1024 * GiB }), nodes, undefined, NodeColumns.of(nodes));
        } catch (error) {
          ok(isSwarmError(error, ErrorCodes.NO_RESOURCES), 'a SwarmError with code NO_RESOURCES');
          return;
        }
        fail('rank accepted a request no node can hold');
      },
    });
  }
  runChecks(checks, tester);
}
