import { describe, expect, it } from 'vitest';
import { definePlugin, fail, PASS, SwarmError, ErrorCodes, type Filter, type Strategy } from '@swarm/plugin-sdk';
import {
  fakeNode,
  filterConformance,
  pluginProviders,
  placementRequest,
  runConfig,
  runFilterCases,
  runStrategyCases,
  strategyConformance,
} from '@swarm/plugin-sdk/testing';

const GiB = 1024 ** 3;

/** A filter that passes nodes whose name is in the `pick` label. */
const pickFilter: Filter = {
  name: 'pick',
  prepare(request) {
    const wanted = request.config.Labels?.['pick'];
    if (wanted === undefined) return undefined;
    return { conditions: [`pick ${wanted}`], check: (node) => (wanted.split(',').includes(node.name) ? PASS : fail('not picked')) };
  },
};

describe('runConfig', () => {
  it('builds what the docker CLI sends for run flags', () => {
    const config = runConfig({
      publish: ['127.0.0.1:8080:80/udp', '443'],
      expose: ['53'],
      constraints: ['node==n1'],
      cpus: 2,
      memory: GiB,
      network: 'host',
    });
    expect(config.ExposedPorts).toEqual({ '80/udp': {}, '443/tcp': {}, '53/tcp': {} });
    expect(config.HostConfig?.PortBindings).toEqual({
      '80/udp': [{ HostIp: '127.0.0.1', HostPort: '8080' }],
      '443/tcp': [{ HostIp: '', HostPort: '' }],
    });
    expect(config.Env).toEqual(['constraint:node==n1']);
    expect(config.HostConfig).toMatchObject({ CpuShares: 2, Memory: GiB, NetworkMode: 'host' });
  });

  it('placementRequest moves directives to labels and reads reservations', () => {
    const request = placementRequest({ constraints: ['node==n1'], cpus: 1, memory: GiB });
    expect(request.config.Labels?.['com.docker.swarm.constraints']).toBe('["node==n1"]');
    expect(request).toMatchObject({ cpus: 1, memory: GiB, soft: true });
  });
});

describe('fakeNode', () => {
  const node = fakeNode({
    name: 'node7',
    cpus: 2,
    memory: 2 * GiB,
    containers: [
      { name: 'web', cpus: 1, memory: GiB },
      { name: 'old', state: 'exited' },
    ],
    images: [{ repoTags: ['redis:7'] }],
  });

  it('computes reservations from its containers and finds by name, ID prefix and image repository', () => {
    expect(node.usedCpus()).toBe(1);
    expect(node.usedMemory()).toBe(GiB);
    expect(node.container('/web')?.name).toBe('web');
    expect(node.container(node.containers()[1]!.id.slice(0, 12))?.name).toBe('old');
    expect(node.image('redis')?.repoTags).toEqual(['redis:7']);
    expect(node.ip).toBe('127.0.0.8');
  });

  it('is frozen, so mutation by a plugin fails loudly', () => {
    expect(() => (node.containers() as unknown[]).push(1)).toThrow(TypeError);
    expect(() => ((node.labels() as Record<string, string>)['x'] = 'y')).toThrow(TypeError);
  });
});

describe('runFilterCases', () => {
  const nodes = [fakeNode({ name: 'a' }), fakeNode({ name: 'b' })];

  runFilterCases(
    pickFilter,
    [
      {
        name: 'registers cases as tests',
        config: { labels: { pick: 'a' } },
        nodes,
        pass: ['a'],
        reasons: { b: 'not picked' },
        conditions: ['pick a'],
      },
    ],
    { it },
  );

  it('fails on a wrong expectation, naming the case', () => {
    expect(() => runFilterCases(pickFilter, [{ name: 'wrong', config: { labels: { pick: 'a' } }, nodes, pass: ['b'] }])).toThrow(
      /^wrong: nodes passing/,
    );
    expect(() =>
      runFilterCases(pickFilter, [{ name: 'reason', config: { labels: { pick: 'a' } }, nodes, reasons: { b: 'other' } }]),
    ).toThrow(/reason for b/);
    expect(() => runFilterCases(pickFilter, [{ name: 'throws', config: {}, nodes, throws: 'boom' }])).toThrow(/expected prepare to throw/);
    expect(() => runFilterCases(pickFilter, [{ name: 'inactive', config: { labels: { pick: 'a' } }, nodes, inactive: true }])).toThrow(
      /inactive/,
    );
  });
});

describe('conformance suites', () => {
  filterConformance(pickFilter, { it });

  it('catch a filter that mutates the request', () => {
    const mutating: Filter = {
      name: 'mutating',
      prepare(request) {
        (request.config as { Image: string }).Image = 'changed';
        return undefined;
      },
    };
    expect(() => filterConformance(mutating)).toThrow(/leaves the request and the nodes untouched/);
  });

  it('catch a filter whose failures have no reason', () => {
    const silent: Filter = { name: 'silent', prepare: () => ({ conditions: [], check: () => fail('') }) };
    expect(() => filterConformance(silent)).toThrow(/well-formed/);
  });

  it('catch a filter that refuses a node it did not name in rowsToCheck', () => {
    const unhealthyOnly = (rows: (healthy: Uint8Array) => number[]): Filter => ({
      name: 'unhealthy-only',
      prepare: (_request, table) => ({
        conditions: [],
        rowsToCheck: rows(table.healthy),
        check: (_node, row) => (table.healthy[row] === 1 ? PASS : fail('node unhealthy')),
      }),
    });
    expect(() => filterConformance(unhealthyOnly(() => []))).toThrow(/refuses node3 \(row 2\) without naming that row/);
    const named = (healthy: Uint8Array) => [...healthy.keys()].filter((row) => healthy[row] !== 1);
    expect(() => filterConformance(unhealthyOnly(named))).not.toThrow();
  });

  it('catch a strategy that ranks nodes twice or accepts what nothing holds', () => {
    const doubling: Strategy = { name: 'doubling', rank: (_request, nodes) => [...nodes, ...nodes].map((node) => ({ node, score: 0 })) };
    expect(() => strategyConformance(doubling)).toThrow(/no duplicates/);
    const careless: Strategy = { name: 'careless', rank: (_request, nodes) => nodes.map((node) => ({ node, score: 0 })) };
    expect(() => strategyConformance(careless)).toThrow(/refuses what no node can hold/);
    expect(() => strategyConformance(careless, undefined, { checksResources: false })).not.toThrow();
  });

  it('runStrategyCases checks order and refusals', () => {
    const byName: Strategy = {
      name: 'by-name',
      rank: (request, nodes) => {
        if (request.memory > GiB) throw new SwarmError(ErrorCodes.NO_RESOURCES, 'no resources available to schedule container');
        return [...nodes].sort((x, y) => x.name.localeCompare(y.name)).map((node, score) => ({ node, score }));
      },
    };
    const nodes = [fakeNode({ name: 'b' }), fakeNode({ name: 'a' })];
    runStrategyCases(byName, [
      { config: {}, nodes, order: ['a', 'b'], scores: { b: 1 } },
      { config: { memory: 2 * GiB }, nodes, throws: 'no resources available to schedule container' },
    ]);
    expect(() => runStrategyCases(byName, [{ config: {}, nodes, first: 'b' }])).toThrow(/best node/);
  });
});

describe('pluginProviders', () => {
  it('records what register provides and builds it with the given services', () => {
    const manifest = definePlugin({
      name: 'swarm-plugin-pick',
      version: '1.0.0',
      apiVersion: '^2.0.0',
      register(context) {
        context.filter('pick', { useValue: pickFilter });
        context.strategy('echo', {
          useFactory: (resolver) => ({
            name: String(resolver.resolve<Record<string, string>>('swarm:StrategyOptions')['label']),
            rank: () => [],
          }),
        });
      },
    });
    const providers = pluginProviders(manifest);
    expect(providers.filter('pick')).toBe(pickFilter);
    expect(providers.strategy('echo', { label: 'hello' }).name).toBe('hello');
    expect(() => providers.filter('nope')).toThrow(/registers no "nope"/);
  });
});
