/**
 * The cost of running a filter and a strategy in a worker thread (`plugins: [['x', { isolate: true }]]`)
 * per placement decision, against the same plugin in process, at 1,000 and 5,000 nodes. Three runs;
 * min / median / max of the per-decision mean. Writes test/bench/results/plugin-isolation.md.
 *
 *   npx tsc -b plugin-sdk core && node test/bench/plugin-isolation.mjs
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fakeNodes, runConfig } from '@swarm/plugin-sdk/testing';
import { createScheduler } from '../../core/dist/scheduler/index.js';
import { pluginGuard } from '../../core/dist/plugins/plugin-guard.js';
import { createPluginContext } from '../../core/dist/plugins/plugin-context.js';
import { IsolatedPlugin, isolatedFilter, isolatedStrategy } from '../../core/dist/plugins/isolation/isolated-host.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SIZES = [1000, 5000];
const RUNS = 3;

// A filter that reads a label column of the table (as the built-ins do) and a strategy by free memory.
const PLUGIN = `import { definePlugin, PASS, fail } from '@swarm/plugin-sdk';
export default definePlugin({
  name: 'swarm-plugin-bench', version: '0.1.0', apiVersion: '^2.0.0',
  register(ctx) {
    ctx.filter('zone', { useValue: { name: 'zone', prepare: (request) => {
      const zone = request.config.Labels?.zone;
      if (!zone) return undefined;
      return { conditions: ['zone==' + zone], check: (node) => (node.labels().zone === zone ? PASS : fail('zone ' + zone)) };
    } } });
    ctx.strategy('roomiest', { useValue: { name: 'roomiest', rank: (request, nodes, limit) =>
      nodes.map((node) => ({ node, score: node.totalMemory() - node.usedMemory() })).sort((a, b) => b.score - a.score).slice(0, limit) } });
  },
});
`;

const dir = mkdtempSync(join(tmpdir(), 'swarm-bench-isolation-'));
mkdirSync(join(dir, 'node_modules', '@swarm'), { recursive: true });
symlinkSync(join(REPO, 'plugin-sdk'), join(dir, 'node_modules', '@swarm', 'plugin-sdk'));
writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
const entry = join(dir, 'index.js');
writeFileSync(entry, PLUGIN);
const manifest = (await import(pathToFileURL(entry).href)).default;
const provided = new Map();
manifest.register(createPluginContext((kind, name, provider) => provided.set(name, provider.useValue)));

function nodesOf(count) {
  return fakeNodes(
    Array.from({ length: count }, (_, i) => ({
      name: `node${i}`,
      labels: { zone: ['a', 'b', 'c', 'd'][i % 4] },
      memory: (4 + (i % 13)) * 2 ** 30,
      containers: Array.from({ length: i % 5 }, (_, k) => ({ name: `c${i}-${k}` })),
    })),
  );
}

function timeDecisions(scheduler, nodes, decisions) {
  const request = scheduler.request(runConfig({ labels: { zone: 'b' } }));
  for (let i = 0; i < 10; i++) scheduler.select(request, nodes);
  const started = performance.now();
  for (let i = 0; i < decisions; i++) scheduler.select(request, nodes);
  return (performance.now() - started) / decisions;
}

const rows = [];
for (const size of SIZES) {
  const nodes = nodesOf(size);
  const decisions = size >= 5000 ? 60 : 200;
  const inProcess = [];
  const isolated = [];
  const first = [];
  for (let run = 0; run < RUNS; run++) {
    const guard = pluginGuard(() => 'swarm-plugin-bench@0.1.0', undefined);
    inProcess.push(timeDecisions(createScheduler([provided.get('zone')], provided.get('roomiest'), { guard }), nodes, decisions));
    const plugin = new IsolatedPlugin({ entry, limitMs: 10_000, guard });
    const scheduler = createScheduler([isolatedFilter('zone', plugin)], isolatedStrategy('roomiest', plugin), { guard });
    const started = performance.now();
    scheduler.select(scheduler.request(runConfig({ labels: { zone: 'b' } })), nodes);
    first.push(performance.now() - started);
    isolated.push(timeDecisions(scheduler, nodes, decisions));
    plugin.close();
  }
  rows.push({ size, inProcess, isolated, first });
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const fmt = (ms) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(2));
const mmm = (values) => sorted(values).map(fmt).join(' / ');
const median = (values) => sorted(values)[1];
const lines = [
  '# Isolated plugins: cost per placement decision (test/bench/plugin-isolation.mjs)',
  '',
  `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores, shared with other jobs; load ${loadavg()[0].toFixed(1)}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
  'One filter (a label per node) and one strategy (free memory, top 8) from the same plugin, in process and with `isolate: true`;',
  "each decision is `scheduler.select` over every node, the nodes unchanged between decisions (the worker is sent each node's data once, then only the ids).",
  'Per-decision mean in ms over 200 decisions (1,000 nodes) or 60 (5,000), after 10 warm-up decisions; min / median / max of 3 runs.',
  '',
  '| nodes | in process (ms) | isolated (ms) | ratio (medians) | first isolated decision: worker start, plugin import, every node sent (ms) |',
  '| --- | --- | --- | --- | --- |',
  ...rows.map(
    (row) =>
      `| ${row.size.toLocaleString('en')} | ${mmm(row.inProcess)} | ${mmm(row.isolated)} | ${(median(row.isolated) / median(row.inProcess)).toFixed(1)}× | ${mmm(row.first)} |`,
  ),
  '',
];
mkdirSync(join(REPO, 'test', 'bench', 'results'), { recursive: true });
writeFileSync(join(REPO, 'test', 'bench', 'results', 'plugin-isolation.md'), lines.join('\n'));
console.log(lines.join('\n'));
