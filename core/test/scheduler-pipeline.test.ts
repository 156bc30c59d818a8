import { describe, expect, it } from 'vitest';
import { fail, PASS, type Filter } from '@swarm/plugin-sdk';
import { fakeNode, fakeNodes, runConfig } from '@swarm/plugin-sdk/testing';
import { createScheduler } from '../dist/scheduler/index.js';
import { defaultFilters, memoryLogger, strategy } from './scheduler-support.js';

const GiB = 1024 ** 3;

describe('scheduler pipeline: placing', () => {
  const scheduler = createScheduler(defaultFilters(), strategy('spread'));

  it('names its filters and strategy', () => {
    expect(scheduler.filterNames).toEqual(['health', 'port', 'containerslots', 'dependency', 'affinity', 'constraint', 'whitelist']);
    expect(scheduler.strategyName).toBe('spread');
  });

  it('builds the request: env directives become labels, CpuShares and Memory are read', () => {
    const request = scheduler.request(
      runConfig({ env: ['A=1'], constraints: ['node==node1'], affinities: ['container==db'], cpus: 2, memory: GiB }),
      'web',
    );
    expect(request.config.Env).toEqual(['A=1']);
    expect(request.config.Labels).toMatchObject({
      'com.docker.swarm.constraints': '["node==node1"]',
      'com.docker.swarm.affinities': '["container==db"]',
    });
    expect(request).toMatchObject({ name: 'web', cpus: 2, memory: GiB, soft: true });
  });

  it('ranks the nodes that pass every filter and explains each verdict', () => {
    const nodes = [
      fakeNode({ name: 'node1', labels: { storage: 'ssd' }, containers: [{ name: 'a', memory: GiB }] }),
      fakeNode({ name: 'node2', labels: { storage: 'ssd' } }),
      fakeNode({ name: 'node3', labels: { storage: 'disk' } }),
    ];
    const placement = scheduler.select(scheduler.request(runConfig({ constraints: ['storage==ssd'], memory: GiB })), nodes);
    expect(placement.ranked.map((entry) => entry.node.name)).toEqual(['node2', 'node1']);
    const { explanation } = placement;
    expect(explanation.chosen).toBe('node2');
    expect(explanation.summary).toBe('2/3 nodes are available: 1 constraint storage==ssd.');
    expect(explanation.softDropped).toBe(false);
    const node3 = explanation.nodes.find((node) => node.name === 'node3')!;
    expect(node3).toMatchObject({ feasible: false });
    expect(node3.verdicts).toEqual([
      { filter: 'health', pass: true },
      { filter: 'containerslots', pass: true },
      { filter: 'constraint', pass: false, reason: 'constraint storage==ssd', resolvable: true },
    ]);
    expect(explanation.nodes.find((node) => node.name === 'node2')).toMatchObject({ feasible: true, rank: 1, score: 100 + 25 - 1000 });
  });

  it("stops at a node's first failing filter", () => {
    const checked: string[] = [];
    const recording = (name: string, failing: string[]): Filter => ({
      name,
      prepare: () => ({
        conditions: [name],
        check: (node) => (checked.push(`${name}:${node.name}`), failing.includes(node.name) ? fail(`${name} says no`) : PASS),
      }),
    });
    const pipeline = createScheduler([recording('first', ['node1']), recording('second', ['node2'])], strategy('spread'));
    pipeline.select(pipeline.request(runConfig()), fakeNodes(3));
    expect(checked).toEqual(['first:node1', 'first:node2', 'second:node2', 'first:node3', 'second:node3']);
  });

  describe('filters that name the rows to check (rowsToCheck)', () => {
    const named = (name: string, rows: number[], failing: string[], checked: string[]): Filter => ({
      name,
      prepare: () => ({
        conditions: [name],
        rowsToCheck: rows,
        check: (node) => (checked.push(`${name}:${node.name}`), failing.includes(node.name) ? fail(`${name} says no`) : PASS),
      }),
    });

    it('checks only the named rows; the others pass, in the placement and in its explanation', () => {
      const checked: string[] = [];
      // rows out of range are ignored
      const pipeline = createScheduler([named('gpu', [1, 3, 7, -1], ['node2'], checked)], strategy('spread'));
      const placement = pipeline.select(pipeline.request(runConfig()), fakeNodes(4));
      expect(checked).toEqual(['gpu:node2', 'gpu:node4']);
      expect(placement.ranked.map((entry) => entry.node.name)).toEqual(['node1', 'node3', 'node4']);
      const node1 = placement.explanation.nodes.find((node) => node.name === 'node1')!;
      expect(node1.verdicts).toEqual([{ filter: 'gpu', pass: true }]);
      expect(placement.explanation.summary).toBe('3/4 nodes are available: 1 gpu says no.');
    });

    it("keeps each node's first failing filter when some filters name rows and others check every node", () => {
      const checked: string[] = [];
      const everyRow: Filter = {
        name: 'every',
        prepare: () => ({
          conditions: ['every'],
          check: (node) => (checked.push(`every:${node.name}`), node.name === 'node3' ? fail('no') : PASS),
        }),
      };
      const pipeline = createScheduler(
        [named('first', [2], ['node3'], checked), everyRow, named('last', [0], ['node1'], checked)],
        strategy('spread'),
      );
      const placement = pipeline.select(pipeline.request(runConfig()), fakeNodes(3));
      expect(checked).toEqual(['every:node1', 'last:node1', 'every:node2', 'first:node3']);
      expect(placement.ranked.map((entry) => entry.node.name)).toEqual(['node2']);
      const verdicts = Object.fromEntries(placement.explanation.nodes.map((node) => [node.name, node.verdicts.at(-1)]));
      expect(verdicts).toEqual({
        node1: { filter: 'last', pass: false, reason: 'last says no', resolvable: true },
        node2: { filter: 'last', pass: true },
        node3: { filter: 'first', pass: false, reason: 'first says no', resolvable: true },
      });
    });

    it('the built-in health and containerslots filters, which name rows, still refuse unhealthy and full nodes', () => {
      const nodes = [
        fakeNode({ name: 'node1', healthy: false }),
        fakeNode({ name: 'node2', labels: { containerslots: '1' }, containers: [{ name: 'a' }] }),
        fakeNode({ name: 'node3', labels: { containerslots: 'many' } }),
        fakeNode({ name: 'node4' }),
      ];
      const placement = scheduler.select(scheduler.request(runConfig()), nodes);
      expect(placement.ranked.map((entry) => entry.node.name).sort()).toEqual(['node3', 'node4']);
      expect(placement.explanation.summary).toBe('2/4 nodes are available: 1 node unhealthy, 1 no available container slots.');
    });
  });

  it('tries soft expressions first and drops them when no node fits', () => {
    const nodes = [fakeNode({ name: 'node1', labels: { disk: 'ssd' } }), fakeNode({ name: 'node2', containers: [{ name: 'x' }] })];
    const preferred = scheduler.select(scheduler.request(runConfig({ constraints: ['disk==~ssd'] })), nodes);
    expect(preferred.explanation).toMatchObject({ chosen: 'node1', softDropped: false });
    const fallback = scheduler.select(scheduler.request(runConfig({ constraints: ['disk==~nvme'] })), nodes);
    expect(fallback.explanation).toMatchObject({ chosen: 'node1', softDropped: true });
    const softAffinity = scheduler.select(scheduler.request(runConfig({ affinities: ['container==~x'] })), nodes);
    expect(softAffinity.explanation.chosen).toBe('node2');
  });

  it('reports nodes the strategy leaves out', () => {
    const nodes = [fakeNode({ name: 'small', memory: GiB }), fakeNode({ name: 'big', memory: 8 * GiB })];
    const placement = scheduler.select(scheduler.request(runConfig({ memory: 2 * GiB })), nodes);
    expect(placement.ranked.map((entry) => entry.node.name)).toEqual(['big']);
    expect(placement.explanation.summary).toBe('1/2 nodes are available: 1 insufficient resources.');
    expect(placement.explanation.nodes[0]!.verdicts.at(-1)).toEqual({
      filter: 'spread',
      pass: false,
      reason: 'insufficient resources',
      resolvable: true,
    });
  });

  it('returns a bounded list of candidates; the explanation still ranks every node', () => {
    const pipeline = createScheduler(defaultFilters(), strategy('spread'), { candidates: 2 });
    const nodes = fakeNodes(5);
    const placement = pipeline.select(pipeline.request(runConfig()), nodes);
    expect(placement.ranked.map((entry) => entry.node.name)).toEqual(['node1', 'node2']);
    expect(placement.explanation.nodes.map((node) => node.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(placement.explanation.summary).toBe('5/5 nodes are available.');
  });

  it('binpack and spread choose differently on the same cluster', () => {
    const nodes = [fakeNode({ name: 'node1', containers: [{ name: 'a', memory: GiB }] }), fakeNode({ name: 'node2' })];
    const request = scheduler.request(runConfig({ memory: GiB }));
    expect(scheduler.select(request, nodes).explanation.chosen).toBe('node2');
    const packing = createScheduler(defaultFilters(), strategy('binpack'));
    expect(packing.select(request, nodes).explanation.chosen).toBe('node1');
  });

  it('a filter that places something itself while checking does not disturb the outer placement', () => {
    const inner = createScheduler(defaultFilters(), strategy('spread'));
    const innerNodes = [fakeNode({ name: 'a', labels: { zone: 'x' } }), fakeNode({ name: 'b', labels: { zone: 'y' } })];
    const innerChoices: string[] = [];
    const nested: Filter = {
      name: 'nested',
      prepare: () => ({
        conditions: ['nested'],
        check: (node) => {
          const placement = inner.select(inner.request(runConfig({ constraints: ['zone==y'] })), innerNodes);
          innerChoices.push(placement.explanation.summary);
          return node.name === 'node2' ? fail('nested says no') : PASS;
        },
      }),
    };
    const outer = createScheduler([nested], strategy('spread'));
    const explanation = outer.explain(outer.request(runConfig()), fakeNodes(3));
    expect(explanation.summary).toBe('2/3 nodes are available: 1 nested says no.');
    expect(explanation.nodes.map((node) => node.feasible)).toEqual([true, false, true]);
    expect(innerChoices).toEqual(Array(3).fill('1/2 nodes are available: 1 constraint zone==y.'));
  });

  it('logs each real placement with its explanation at debug level only', () => {
    const debug = memoryLogger('debug');
    createScheduler(defaultFilters(), strategy('spread'), { logger: debug }).select(scheduler.request(runConfig(), 'web'), fakeNodes(2));
    expect(debug.entries).toHaveLength(1);
    expect(debug.entries[0]).toMatchObject({
      level: 'debug',
      message: 'placed on node1',
      fields: { container: 'web', explanation: { chosen: 'node1' } },
    });
    const info = memoryLogger('info');
    createScheduler(defaultFilters(), strategy('spread'), { logger: info }).select(scheduler.request(runConfig()), fakeNodes(2));
    expect(info.entries).toHaveLength(0);
  });
});
