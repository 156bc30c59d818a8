/**
 * The cost of running an access plugin in a worker thread (`plugins: [['x', { isolate: true }]]`)
 * against the same plugin in process: the built-in `rules` authorizer (offered again by a
 * third-party package so that its entry can be isolated), called as the host calls it (the time
 * limits around it, `AccessControl`'s chain).
 *   - one authorization decision (`authorize`), sequential, and 16 at once;
 *   - a list of 1,000 and 5,000 containers filtered through the caller's view (`visibility`, then
 *     `sees` once per object, as `docker ps -a` does);
 *   - the worker's start (plugin import and factory) and its memory.
 * Three runs; min / median / max of the per-run mean. Writes test/bench/results/access-isolation.md.
 *
 *   npx tsc -b plugin-sdk core plugins/authz-rules && node test/bench/access-isolation.mjs
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRulesAuthorizer } from '@swarm/authz-rules';
import { AccessControl } from '../../core/dist/access/access-control.js';
import { seesEach } from '../../core/dist/plugins/list-visibility.js';
import { pluginGuard } from '../../core/dist/plugins/plugin-guard.js';
import { timeLimited } from '../../core/dist/plugins/time-limited.js';
import { IsolatedAccessPlugin, isolatedAccessPlugin } from '../../core/dist/plugins/isolation/isolated-access.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = 3;
const DECISIONS = 2000;
const LISTS = [1000, 5000];

const REEXPORT = `import { definePlugin } from '@swarm/plugin-sdk';
import { createRulesAuthorizer } from '@swarm/authz-rules';
export default definePlugin({ name: 'swarm-plugin-rules-bench', version: '0.1.0', apiVersion: '^2.1.0',
  register(ctx) { ctx.authz('rules', { useValue: createRulesAuthorizer }); } });
`;

const dir = mkdtempSync(join(tmpdir(), 'swarm-bench-access-isolation-'));
symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
const entry = join(dir, 'index.js');
writeFileSync(entry, REEXPORT);

const OPTIONS = {
  bindings: [
    { group: 'team-a', role: 'edit', scope: 'team' },
    { group: 'team-b', role: 'edit', scope: 'team' },
    { group: 'admins', role: 'admin' },
    { group: 'auditors', role: 'view', scope: 'all' },
  ],
};
const silent = { level: 'silent', trace() {}, debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const LIMITS = { timeoutMs: 10_000, failurePolicy: 'fail' };
const alice = { user: 'alice', groups: ['team-a'], method: 'TLS' };
const labels = (i) => ({
  'com.docker.swarm.owner': i % 3 === 0 ? 'alice' : 'bob',
  'com.docker.swarm.team': i % 3 === 0 ? 'team-a' : 'team-b',
});
const request = {
  caller: alice,
  action: 'container.stop',
  object: { kind: 'container', id: 'c'.repeat(64), name: 'web', labels: labels(0), node: 'node1' },
  wire: { method: 'POST', uri: '/v1.41/containers/web/stop', headers: { 'user-agent': 'bench' }, peerCertificates: [] },
};
const objects = (count) =>
  Array.from({ length: count }, (_, i) => ({
    kind: 'container',
    id: `${i}`.padStart(64, '0'),
    name: `c${i}`,
    labels: labels(i),
    node: `node${i % 50}`,
  }));

async function inProcess(guard) {
  return timeLimited(await createRulesAuthorizer({ options: OPTIONS, configDir: dir, logger: silent }), 'authz', 'rules', guard, LIMITS);
}

async function isolated(guard) {
  const host = new IsolatedAccessPlugin({
    entry,
    kind: 'authz',
    token: 'swarm:Authorizer',
    name: 'rules',
    options: OPTIONS,
    configDir: dir,
    logger: silent,
    limitMs: LIMITS.timeoutMs,
    syncLimitMs: 1000,
    guard,
  });
  return { host, plugin: timeLimited(await isolatedAccessPlugin(host), 'authz', 'rules', guard, LIMITS) };
}

/** Mean ms per decision, one at a time. */
async function sequential(control) {
  for (let i = 0; i < 100; i++) await control.authorize(request);
  const started = performance.now();
  for (let i = 0; i < DECISIONS; i++) await control.authorize(request);
  return (performance.now() - started) / DECISIONS;
}

/** Mean ms per decision with 16 in flight (the decisions many clients' requests wait on at once). */
async function concurrent(control) {
  const started = performance.now();
  for (let i = 0; i < DECISIONS; i += 16) await Promise.all(Array.from({ length: 16 }, () => control.authorize(request)));
  return (performance.now() - started) / DECISIONS;
}

/**
 * Mean ms for one list: the caller's view, then `sees` of every object (each one distinct), one
 * object at a time or (`each`) as the container list asks, the whole list at once.
 */
async function list(control, all, each) {
  let shown = 0;
  const rounds = 5;
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    const view = await control.visibility(alice);
    shown = each ? seesEach(view, all).filter(Boolean).length : all.filter((object) => view.sees(object)).length;
  }
  if (shown !== Math.ceil(all.length / 3)) throw new Error(`the view showed ${shown} of ${all.length}`);
  return (performance.now() - started) / rounds;
}

const results = { sequential: { in: [], iso: [] }, concurrent: { in: [], iso: [] }, start: [], rss: [] };
for (const size of LISTS) results[size] = { in: [], iso: [], each: { in: [], iso: [] } };
const lists = Object.fromEntries(LISTS.map((size) => [size, objects(size)]));

for (let run = 0; run < RUNS; run++) {
  const guard = pluginGuard(() => 'swarm-plugin-rules-bench@0.1.0', undefined);
  const local = new AccessControl({ authenticators: [], authorizers: [{ name: 'rules', plugin: await inProcess(guard) }], admission: [] });
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const { host, plugin } = await isolated(guard);
  results.start.push(performance.now() - started);
  const remote = new AccessControl({ authenticators: [], authorizers: [{ name: 'rules', plugin }], admission: [] });
  await remote.authorize(request);
  results.rss.push((process.memoryUsage().rss - rssBefore) / 2 ** 20);
  results.sequential.in.push(await sequential(local));
  results.sequential.iso.push(await sequential(remote));
  results.concurrent.in.push(await concurrent(local));
  results.concurrent.iso.push(await concurrent(remote));
  for (const size of LISTS) {
    for (const each of [false, true]) {
      await list(local, lists[size], each);
      await list(remote, lists[size], each);
      const into = each ? results[size].each : results[size];
      into.in.push(await list(local, lists[size], each));
      into.iso.push(await list(remote, lists[size], each));
    }
  }
  host.close();
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const fmt = (ms) => (ms < 0.1 ? ms.toFixed(4) : ms < 10 ? ms.toFixed(3) : ms.toFixed(1));
const mmm = (values) => sorted(values).map(fmt).join(' / ');
const median = (values) => sorted(values)[1];
const row = (what, pair) =>
  `| ${what} | ${mmm(pair.in)} | ${mmm(pair.iso)} | +${fmt(median(pair.iso) - median(pair.in))} | ${(median(pair.iso) / median(pair.in)).toFixed(1)}× |`;
const lines = [
  '# Isolated access plugins: cost per decision (test/bench/access-isolation.mjs)',
  '',
  `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores, shared with other jobs; load ${loadavg()[0].toFixed(1)}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
  "The built-in `rules` authorizer (four bindings), in process and with `isolate: true`, called as the host calls it (the entry's time limits around it, `AccessControl`'s chain).",
  `Per-decision mean in ms over ${DECISIONS} decisions after 100 warm-up ones; a list is the caller's view plus \`sees\` of every container (each distinct, a third of them the caller's), asked per object (as the host's single look-ups do) or as one list (as the container list does: an isolated view answers it in one round trip per 1,000 objects), mean of 5 lists after one warm-up. Min / median / max of ${RUNS} runs.`,
  '',
  '| what | in process (ms) | isolated (ms) | added (medians, ms) | ratio |',
  '| --- | --- | --- | --- | --- |',
  row('one `authorize`, one at a time', results.sequential),
  row('one `authorize`, 16 in flight', results.concurrent),
  ...LISTS.map((size) => row(`a list of ${size.toLocaleString('en')} containers, \`sees\` per object`, results[size])),
  ...LISTS.map((size) => row(`a list of ${size.toLocaleString('en')} containers, asked as one list (\`docker ps\`)`, results[size].each)),
  '',
  `Worker start (import the plugin, run its factory), ms: ${mmm(results.start)}. Resident memory the worker adds (RSS before and after its start, MiB; noisy: the collector runs in between): ${mmm(results.rss)}.`,
  '',
];
mkdirSync(join(REPO, 'test', 'bench', 'results'), { recursive: true });
writeFileSync(join(REPO, 'test', 'bench', 'results', 'access-isolation.md'), lines.join('\n'));
console.log(lines.join('\n'));
rmSync(dir, { recursive: true, force: true });
