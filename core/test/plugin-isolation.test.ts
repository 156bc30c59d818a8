import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@swarm/plugin-sdk';
import { fakeNodes, runConfig } from '@swarm/plugin-sdk/testing';
import { createScheduler } from '../dist/scheduler/index.js';
import { pluginGuard } from '../dist/plugins/plugin-guard.js';
import { IsolatedPlugin, isolatedFilter, isolatedStrategy } from '../dist/plugins/isolation/isolated-host.js';

const SDK = fileURLToPath(new URL('../../plugin-sdk', import.meta.url));

// A filter on a label, a strategy by free memory, and hooks that hang or throw when the request asks.
const PLUGIN = `import { definePlugin, PASS, fail } from '@swarm/plugin-sdk';
const asked = (request, word) => (request.config.Env ?? []).includes(word);
export default definePlugin({
  name: 'swarm-plugin-zones',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  register(ctx) {
    ctx.filter('zone', { useValue: { name: 'zone', prepare: (request, table) => {
      if (asked(request, 'HANG=1')) for (;;) {}
      const zone = request.config.Labels?.zone;
      if (!zone) return undefined;
      return { conditions: ['zone==' + zone], check: (node, row) => {
        if (asked(request, 'THROW=1') && node.name === 'node2') throw new TypeError('zone table missing');
        return node.labels().zone === zone ? PASS : fail('zone ' + zone);
      } };
    } } });
    ctx.strategy('roomiest', { useValue: { name: 'roomiest', rank: (request, nodes) =>
      nodes.map((node) => ({ node, score: node.totalMemory() - node.usedMemory() })).sort((a, b) => b.score - a.score) } });
  },
});
`;

let entry: string;
const nodes = fakeNodes([
  { name: 'node1', labels: { zone: 'a' }, memory: 4e9 },
  { name: 'node2', labels: { zone: 'b' }, memory: 8e9 },
  { name: 'node3', labels: { zone: 'a' }, memory: 16e9 },
]);
const plugins: IsolatedPlugin[] = [];

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'swarm-isolation-'));
  mkdirSync(join(dir, 'node_modules', '@swarm'), { recursive: true });
  symlinkSync(SDK, join(dir, 'node_modules', '@swarm', 'plugin-sdk'));
  entry = join(dir, 'index.js');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(entry, PLUGIN);
});

afterAll(() => plugins.forEach((plugin) => plugin.close()));

function isolatedScheduler(limitMs: number) {
  const guard = pluginGuard(() => 'swarm-plugin-zones@0.1.0', undefined);
  const plugin = new IsolatedPlugin({ entry, limitMs, guard });
  plugins.push(plugin);
  return { plugin, scheduler: createScheduler([isolatedFilter('zone', plugin)], isolatedStrategy('roomiest', plugin), { guard }) };
}

describe('a plugin run in a worker thread (isolate: true)', () => {
  it('places as it would in process: the same verdicts and ranking over the nodes sent as data', () => {
    const { scheduler } = isolatedScheduler(5000);
    const placement = scheduler.select(scheduler.request(runConfig({ labels: { zone: 'a' } })), nodes);
    expect(placement.ranked.map((entry) => entry.node.name)).toEqual(['node3', 'node1']);
    expect(placement.ranked[0]!.node).toBe(nodes[2]);
    const explanation = scheduler.explain(scheduler.request(runConfig({ labels: { zone: 'c' } })), nodes);
    expect(explanation.summary).toBe('0/3 nodes are available: 3 zone c.');
  });

  it('ends a hook that does not return, answers a coded error naming it, counts it, and places again with a new worker', () => {
    const { plugin, scheduler } = isolatedScheduler(500);
    expect(scheduler.select(scheduler.request(runConfig({})), nodes).ranked).toHaveLength(3);
    const started = Date.now();
    let error: unknown;
    try {
      scheduler.select(scheduler.request(runConfig({ env: ['HANG=1'] })), nodes);
    } catch (caught) {
      error = caught;
    }
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toMatchObject({
      code: ErrorCodes.PLUGIN_TIMEOUT,
      message:
        'filter "zone" (swarm-plugin-zones@0.1.0) did not answer in prepare() within its time limit of 500ms (the plugin entry\'s timeout option sets it)',
    });
    expect(plugin.hung).toBe(1);
    expect(scheduler.select(scheduler.request(runConfig({ labels: { zone: 'b' } })), nodes).ranked.map((entry) => entry.node.name)).toEqual(
      ['node2'],
    );
  });

  it("names the node a check threw on, with the plugin's own message", () => {
    const { scheduler } = isolatedScheduler(5000);
    expect(() => scheduler.select(scheduler.request(runConfig({ labels: { zone: 'a' }, env: ['THROW=1'] })), nodes)).toThrow(
      'filter "zone" (swarm-plugin-zones@0.1.0) failed in check() on node "node2": zone table missing',
    );
  });
});
