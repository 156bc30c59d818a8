/**
 * In-process scheduling throughput: Swarm classic's default filters + spread on synthetic nodes
 * (100 / 1,000 / 10,000 nodes × 30 containers), against a pass-all baseline pipeline measured in
 * the same run. Writes test/bench/results/scheduler-throughput.md.
 *
 *   npx tsc -b plugin-sdk core plugins/filter-* plugins/strategy-* && npx tsc -p test/bench && taskset -c 1 node --expose-gc --max-semi-space-size=64 test/bench/dist/scheduler-throughput.js
 *
 * BENCH_COMPARE_ROOT=<dir> also measures another build of the scheduler in the same run (for
 * before/after figures): a directory laid out like this repository with the built plugin-sdk,
 * core, filter and strategy packages and their node_modules/@swarm links, e.g. a worktree of an
 * earlier commit after `npm ci && npm run build`. BENCH_COMPARE_LABEL names it in the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { GCProfiler } from 'node:v8';
import { pathToFileURL } from 'node:url';
import type { Filter, Node, Placement, PluginManifest, Scheduler, Strategy } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { fakeNode, reportChange, runConfig, type FakeContainerSpec } from '@swarm/plugin-sdk/testing';

import type * as SdkModule from '@swarm/plugin-sdk';
import type * as TestingModule from '@swarm/plugin-sdk/testing';
import type * as CoreSchedulerModule from '../../core/dist/scheduler/index.js';

type Sdk = typeof SdkModule;
type Testing = typeof TestingModule;
// @swarm/core does not export the pipeline by itself; it is loaded from the built module.
type SchedulerModule = typeof CoreSchedulerModule;

/** The pipelines of one build of the scheduler and its plugins, loaded from a repository root. */
interface Build {
  readonly label: string;
  readonly pipeline: Scheduler;
  /** One pass-all filter and a keep-order strategy: it never reads a node. */
  readonly baseline: Scheduler;
  /** The baseline plus a filter that reads each node's container list length, as most filters must. */
  readonly listFloor: Scheduler;
}

const FILTERS = ['health', 'port', 'containerslots', 'dependency', 'affinity', 'constraint', 'whitelist'];

async function loadBuild(root: URL, label: string): Promise<Build> {
  const load = async <T>(path: string): Promise<T> => (await import(new URL(path, root).href)) as T;
  const { PASS } = await load<Sdk>('plugin-sdk/dist/index.js');
  const { pluginProviders } = await load<Testing>('plugin-sdk/dist/testing/index.js');
  const { createScheduler } = await load<SchedulerModule>('core/dist/scheduler/index.js');
  const manifest = async (path: string) => (await load<{ default: PluginManifest }>(`${path}/dist/index.js`)).default;
  const filters: Filter[] = [];
  for (const name of FILTERS) filters.push(pluginProviders(await manifest(`plugins/filter-${name}`)).filter(name));
  const spread = pluginProviders(await manifest('plugins/strategy-spread')).strategy('spread');
  // The floor: one filter that passes everything and a strategy that keeps the given order.
  const passAll: Filter = { name: 'pass-all', prepare: () => ({ conditions: [], check: () => PASS }) };
  const keepOrder: Strategy = { name: 'keep-order', rank: (_request, nodes) => nodes.map((node) => ({ node, score: 0 })) };
  const readsLists: Filter = {
    name: 'reads-lists',
    prepare: () => ({ conditions: [], check: (node) => (node.containers().length >= 0 ? PASS : PASS) }),
  };
  return {
    label,
    pipeline: createScheduler(filters, spread),
    baseline: createScheduler([passAll], keepOrder),
    listFloor: createScheduler([passAll, readsLists], keepOrder),
  };
}

const MiB = 1024 ** 2;
const NODE_COUNTS = (process.env['BENCH_NODES'] ?? '100,1000,10000').split(',').map(Number);
const CONTAINERS_PER_NODE = 30;
const SECONDS_PER_CASE = Number(process.env['BENCH_SECONDS'] ?? 2);

function syntheticNode(index: number): Node {
  const containers: FakeContainerSpec[] = Array.from({ length: CONTAINERS_PER_NODE }, (_, c) => ({
    name: `n${index}-c${c}`,
    image: c % 2 === 0 ? 'busybox:local' : 'redis:7',
    publish: c % 10 === 0 ? [`${9000 + c}:80`] : [],
    labels: { app: `app${c % 5}` },
    state: c % 7 === 0 ? 'exited' : 'running',
  }));
  return fakeNode({
    name: `node${index}`,
    labels: { region: `eu-${index % 4}`, containerslots: '100', storagedriver: 'vfs' },
    cpus: 32,
    memory: 128 * 1024 * MiB,
    usedCpus: index % 16,
    usedMemory: (index % 64) * 1024 * MiB,
    healthIndicator: 100 - (index % 3),
    containers,
    images: [{ repoTags: ['busybox:local'] }, { repoTags: ['redis:7'] }],
    // Plain objects like a driver's, not the test kit's frozen ones (V8 reads those slower).
    frozen: false,
  });
}

const WORKLOADS: Record<string, ContainerConfig> = {
  'plain (-m 256m)': runConfig({ memory: 256 * MiB }),
  'rich (-p, constraint, soft affinity, -m)': runConfig({
    publish: ['8080:80'],
    constraints: ['region!=eu-3', 'storagedriver==vfs'],
    affinities: ['image==~busybox'],
    memory: 256 * MiB,
  }),
};

interface Measurement {
  decisions: number;
  perSecond: number;
  /** Decisions per second of this process's CPU time: capacity on one core, less sensitive to other load. */
  perCpuSecond: number;
  p10: number;
  p50: number;
  p99: number;
  /** Decisions/s of the fastest batch of BATCH decisions: the least disturbed by other load. */
  bestBatchPerSecond: number;
  /** Heap allocated per decision (KB), when the run exposes gc (`--expose-gc`). */
  allocatedKb: number | undefined;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** What each decision allocates: heap growth over 100 decisions after a full GC, plus what GCs freed meanwhile. */
function allocationPerDecision(decide: () => void): number | undefined {
  if (gc === undefined) return undefined;
  const decisions = 100;
  gc();
  const profiler = new GCProfiler();
  profiler.start();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < decisions; i++) decide();
  const after = process.memoryUsage().heapUsed;
  const freed = profiler
    .stop()
    .statistics.reduce((total, event) => total + event.beforeGC.heapStatistics.usedHeapSize - event.afterGC.heapStatistics.usedHeapSize, 0);
  return (after - before + freed) / decisions / 1024;
}

const BATCH = 20;

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/** Time for the GC's background work on a heap of hundreds of MB (sweeping after the full GC) to end before timing. */
const QUIET_MS = 500;

async function measure(
  scheduler: Scheduler,
  config: ContainerConfig,
  nodes: readonly Node[],
  afterDecision?: (placement: Placement) => void,
): Promise<Measurement> {
  const decide = afterDecision
    ? () => afterDecision(scheduler.select(scheduler.request(config), nodes))
    : () => scheduler.select(scheduler.request(config), nodes);
  for (let i = 0; i < 50; i++) decide();
  const allocatedKb = allocationPerDecision(decide);
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  const samples: number[] = [];
  const deadline = process.hrtime.bigint() + BigInt(SECONDS_PER_CASE * 1e9);
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  let now = started;
  while (now < deadline) {
    const before = now;
    decide();
    now = process.hrtime.bigint();
    samples.push(Number(now - before) / 1e6);
  }
  const cpu = process.cpuUsage(cpuBefore);
  let bestBatch = Infinity;
  for (let start = 0; start + BATCH <= samples.length; start += BATCH) {
    bestBatch = Math.min(
      bestBatch,
      samples.slice(start, start + BATCH).reduce((total, sample) => total + sample, 0),
    );
  }
  const sorted = Float64Array.from(samples).sort();
  return {
    decisions: samples.length,
    perSecond: samples.length / (Number(now - started) / 1e9),
    perCpuSecond: samples.length / ((cpu.user + cpu.system) / 1e6),
    p10: percentile(sorted, 0.1),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    bestBatchPerSecond: Number.isFinite(bestBatch) ? (BATCH * 1000) / bestBatch : samples.length / (Number(now - started) / 1e9),
    allocatedKb,
  };
}

const fmt = (value: number, digits = 3): string => value.toFixed(digits);
const rate = (value: number): string => Math.round(value).toLocaleString('en-US');

function row(count: number, pipeline: string, result: Measurement, baseline: Measurement): string {
  const cells = [
    rate(count),
    pipeline,
    rate(result.decisions),
    rate(result.perSecond),
    rate(result.perCpuSecond),
    rate(result.bestBatchPerSecond),
    fmt(result.p50),
    fmt(result.p99),
    fmt(result.p50 / baseline.p50, 1),
    result.allocatedKb === undefined ? '–' : fmt(result.allocatedKb, 1),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** One pipeline's figures across node counts, for the growth table. */
interface Series {
  readonly p10: number[];
  readonly p50: number[];
  readonly bestBatchCost: number[];
  readonly overBaseline: number[];
}

const steps = (values: readonly number[]): string =>
  values
    .slice(1)
    .map((value, i) => `×${fmt(value / values[i]!, 1)}`)
    .join(' then ');

function growthRow(name: string, series: Series): string {
  return `| ${name} | ${steps(series.p50)} | ${steps(series.p10)} | ${steps(series.bestBatchCost)} | ${series.overBaseline.map((ratio) => fmt(ratio, 1)).join(' / ')} |`;
}

async function loadBuilds(): Promise<Build[]> {
  const builds = [await loadBuild(new URL('../../../', import.meta.url), 'this build')];
  const compareRoot = process.env['BENCH_COMPARE_ROOT'];
  if (compareRoot) {
    const root = pathToFileURL(compareRoot.endsWith('/') ? compareRoot : `${compareRoot}/`);
    builds.push(await loadBuild(root, process.env['BENCH_COMPARE_LABEL'] ?? compareRoot));
  }
  return builds;
}

/** The CPUs this process may run on (`taskset -c 1` pins it to one, so it never resumes with a cold L2). */
function allowedCpus(): string {
  try {
    return /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The environment a comparison run was given, as it would be typed before the command. */
function compareEnv(): string {
  const root = process.env['BENCH_COMPARE_ROOT'];
  if (!root) return '';
  const label = process.env['BENCH_COMPARE_LABEL'];
  return `BENCH_COMPARE_ROOT=${root} ${label ? `BENCH_COMPARE_LABEL=${JSON.stringify(label)} ` : ''}`;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const builds = await loadBuilds();
  const named = (build: Build, pipeline: string): string => (builds.length > 1 ? `${build.label}: ${pipeline}` : pipeline);
  const rows: string[] = [];
  const series = new Map<string, Series>();
  const record = (name: string, result: Measurement, baseline: Measurement): void => {
    const entry = series.get(name) ?? { p10: [], p50: [], bestBatchCost: [], overBaseline: [] };
    entry.p10.push(result.p10);
    entry.p50.push(result.p50);
    entry.bestBatchCost.push(1 / result.bestBatchPerSecond);
    entry.overBaseline.push(result.p50 / baseline.p50);
    series.set(name, entry);
  };
  for (const count of NODE_COUNTS) {
    const nodes = Array.from({ length: count }, (_, i) => syntheticNode(i + 1));
    // Settle the heap the node data just filled (with --expose-gc), so building it is not billed to decisions.
    gc?.();
    for (const build of builds) {
      const baseline = await measure(build.baseline, WORKLOADS['plain (-m 256m)']!, nodes);
      const baselineName = named(build, 'baseline (pass-all, keep order)');
      rows.push(row(count, baselineName, baseline, baseline));
      record(baselineName, baseline, baseline);
      if (build === builds[0]) {
        const floor = await measure(build.listFloor, WORKLOADS['plain (-m 256m)']!, nodes);
        const floorName = named(build, "floor (baseline + reads each node's container list)");
        rows.push(row(count, floorName, floor, baseline));
        record(floorName, floor, baseline);
      }
      for (const [workload, config] of Object.entries(WORKLOADS)) {
        const result = await measure(build.pipeline, config, nodes);
        const name = named(build, `default filters + spread, ${workload}`);
        rows.push(row(count, name, result, baseline));
        record(name, result, baseline);
        console.log(
          `${count} nodes, ${name}: ${rate(result.perSecond)} decisions/s (${rate(result.perCpuSecond)} per CPU-s, best batch ${rate(result.bestBatchPerSecond)}/s), p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms`,
        );
      }
      // As in a running cluster, the node that got the container reports a change (Node.watch), so
      // the next decision reads it again.
      const churn = await measure(build.pipeline, WORKLOADS['plain (-m 256m)']!, nodes, (placement) =>
        reportChange(placement.ranked[0]!.node),
      );
      const churnName = named(build, 'default filters + spread, plain, the chosen node reports a change');
      rows.push(row(count, churnName, churn, baseline));
      record(churnName, churn, baseline);
    }
  }
  const counts = NODE_COUNTS.map(rate);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const compared =
    builds.length > 1
      ? [
          `Rows named "${builds[1]!.label}" are another build of the scheduler and its plugins (\`BENCH_COMPARE_ROOT\`: built packages of an earlier commit, see the header of test/bench/scheduler-throughput.ts), measured in the same run on the same nodes, each against its own pass-all baseline.`,
          '',
        ]
      : [];
  const report = [
    '# Scheduler throughput',
    '',
    `Measured ${new Date().toISOString()} with \`node ${process.execArgv.join(' ')}\` on ${cpu} (${cpus().length} cores, ${Math.round(totalmem() / 1024 ** 3)} GiB), Node ${process.version}, one thread, allowed CPUs: ${allowedCpus()}. The machine was shared: 1-minute load average ${fmt(loadBefore, 1)} at the start and ${fmt(loadavg()[0]!, 1)} at the end, so wall-clock figures include waiting for a core; "decisions per CPU-s" counts this process's CPU time only.`,
    '',
    'Command (from the repository root):',
    '',
    '```',
    `npx tsc -b plugin-sdk core plugins/filter-* plugins/strategy-* && npx tsc -p test/bench && ${compareEnv()}taskset -c 1 node --expose-gc --max-semi-space-size=64 test/bench/dist/scheduler-throughput.js`,
    '```',
    '',
    `Each decision is \`scheduler.request(config)\` + \`scheduler.select(request, nodes)\` over synthetic nodes with ${CONTAINERS_PER_NODE} containers each (every 10th publishing a host port, every 7th stopped), ${SECONDS_PER_CASE} s per row after 50 warm-up decisions. The baseline is the same pipeline with one pass-all filter and a keep-order strategy, measured in the same run; "p50 × baseline" is p50 / baseline p50; the allocation is the heap growth over 100 decisions after a full GC plus what GCs freed meanwhile (V8's GC profiler). The floor row adds to the baseline a filter that only reads each node's container-list length, the least a filter that looks at containers can do: it shows what merely reaching every node's data costs once that data (about 350 MB of heap at 10,000 nodes) no longer fits in the CPU caches.`,
    '',
    ...compared,
    '| nodes | pipeline | decisions | decisions/s (wall) | decisions per CPU-s | decisions/s, best batch of 20 | p50 ms | p99 ms | p50 × baseline | KB allocated per decision |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Growth for each ×10 nodes (${counts.join(' → ')}; linear is ×10), and p50 over the same build's baseline at each size (flat means the pipeline grows like the baseline):`,
    '',
    '| pipeline | p50 | p10 | best-batch time per decision | p50 × baseline |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...[...series].map(([name, entry]) => growthRow(name, entry)),
    '',
    "A pipeline that grows like the floor row is limited by reaching the nodes' data in memory (each node's objects lie apart in a heap of hundreds of MB), not by the work it does per node. The filters and strategies read per-node facts from the scheduler's NodeTable (compact columns, a few bytes per node), and nodes are read again only after they report a change through `Node.watch`; the \"reports a change\" row has the chosen node report one after every decision, as a driver's node does when it gets the container. At 10,000 nodes a decision reads about 650 KB of columns, which fits a core's L2 cache (1-2 MB on current server CPUs) but must be fetched again whenever the process resumes on the other core or after another process ran: decision times there are bimodal, so p10 and the best batch show the undisturbed cost best.",
    '',
    'Targets (issue 5) at 1,000 nodes × 30 containers: ≥ 5,000 decisions/s and p99 ≤ 2 ms.',
    '',
    "`--max-semi-space-size=64` is kept so runs compare with earlier ones. It mattered when a 10,000-node decision allocated about 1 MB (growing lists and the full ranking), which V8's default young generation promoted and then marked with the whole node cache; the last column shows what a decision allocates now (the rich workload's is mostly the exactly sized lists of its 2,500 refused and 7,500 feasible nodes at 10,000 nodes).",
    '',
  ].join('\n');
  const path = new URL('../results/scheduler-throughput.md', import.meta.url);
  writeFileSync(path, report);
  console.log(`\nwrote ${path.pathname}`);
}

await main();
