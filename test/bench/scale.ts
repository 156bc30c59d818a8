import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MEASURED_DELAYS } from '@swarm/core/hollow';
import { ENGINE_MARKED_UNHEALTHY, startHollowFleet, startManager } from './scale/children.js';
import { createThroughput, infoLatency, infoReplayLatency, psLatency, runLatency, timeToHealthy } from './scale/phases.js';
import { PeakRss, sampleProcess } from './scale/process-meter.js';
import { hotSpots, hotSpotTable, readProfile, selfTimeByPackage } from './scale/profile-summary.js';
import { loadNow, machine, resultSection, type ScaleResult } from './scale/report.js';

const USAGE = `Scale benchmark: hollow engines, swarm manage in front, a real client (dockerode) measuring.

  npx tsc -p test/bench/scale && node test/bench/scale/dist/scale.js [options]

  --nodes 100,1000      cluster sizes to run, one after the other (default 100,1000)
  --containers 30       running containers preloaded per engine (default 30)
  --delay MS            hollow per-call delay for every call (default: measured real-engine delays)
  --hollow-processes N  processes the hollow engines are split over (default: one per 1,250 engines)
  --runs 500            docker run -d (create + start) samples   --run-workers 4   clients issuing them
  --creates 1600        creates for the throughput phase          --create-workers 16
  --info-runs 200       --ps-runs 20
  --settle 30           seconds of quiet before the settled RSS samples (after start-up, after the run)
  --port 24900          manager port (the next sizes use the next ports)
  --profile             run the manager under node --cpu-prof and list its hot spots
  --manager-flags="..." node flags for the manager, with the = (they start with a dash; experiments: what users run has none)
  --manager PATH        another build's core/bin/swarm.js (before/after runs with the same bench and engines)
  --manager-log FILE    append the manager's whole output to FILE, with a line at the start of each phase
                        (ms since the manager started: with --manager-flags=--trace-gc, which GCs fell in which phase)
  --out FILE            results file (default test/.artifacts/scale/scale-<date>.md; results/scale.md keeps
                        the current figures, written by hand from such runs)`;

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '100,1000' },
    containers: { type: 'string', default: '30' },
    delay: { type: 'string' },
    'hollow-processes': { type: 'string' },
    runs: { type: 'string', default: '500' },
    'run-workers': { type: 'string', default: '4' },
    creates: { type: 'string', default: '1600' },
    'create-workers': { type: 'string', default: '16' },
    'info-runs': { type: 'string', default: '200' },
    'ps-runs': { type: 'string', default: '20' },
    port: { type: 'string', default: '24900' },
    'healthy-timeout': { type: 'string', default: '180' },
    'manager-flags': { type: 'string', default: '' },
    manager: { type: 'string' },
    'manager-log': { type: 'string' },
    settle: { type: 'string', default: '30' },
    profile: { type: 'boolean', default: false },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

// A run's tables go next to the other test artifacts: results/ holds one current, annotated file per benchmark.
const RESULTS = fileURLToPath(new URL('../../../.artifacts/scale/', import.meta.url));
const date = new Date().toISOString();
const out = values.out ?? join(RESULTS, `scale-${date.slice(0, 10)}.md`);
const runEngineDelayMs = values.delay === undefined ? MEASURED_DELAYS.create + MEASURED_DELAYS.start : 2 * Number(values.delay);
const command = `node test/bench/scale/dist/scale.js ${process.argv.slice(2).join(' ')}`.trim();

const settleMs = Number(values.settle) * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Linux caps one argument at 128 KiB: past that (about 7,000 engines) the list goes to a `file://` discovery file. */
const LONGEST_ARGUMENT = 100_000;

function discoveryArgument(discovery: string, nodes: number): string {
  if (discovery.length <= LONGEST_ARGUMENT) return discovery;
  const file = join(tmpdir(), `swarm-scale-${nodes}-engines.txt`);
  writeFileSync(file, `${discovery.slice('nodes://'.length).split(',').join('\n')}\n`);
  return `file://${file}`;
}

async function measure(nodes: number, port: number): Promise<ScaleResult> {
  const containers = Number(values.containers);
  const hollowProcesses = Number(values['hollow-processes'] ?? Math.ceil(nodes / 1250));
  const hollow = await startHollowFleet(nodes, containers, values.delay, hollowProcesses);
  const profileDir = values.profile ? mkdtempSync(join(tmpdir(), 'swarm-scale-prof-')) : undefined;
  const startedAt = performance.now();
  const managerFlags = (values['manager-flags'] ?? '').split(' ').filter((flag) => flag !== '');
  let manager: ReturnType<typeof startManager>;
  try {
    manager = startManager(
      port,
      discoveryArgument(hollow.discovery, nodes),
      profileDir,
      [],
      managerFlags,
      values.manager,
      values['manager-log'],
    );
  } catch (error) {
    await hollow.stop();
    throw error;
  }
  const mark = (what: string): void => manager.note(`# bench: ${what} at ${Math.round(performance.now() - startedAt)} ms`);
  try {
    const healthyMs = await timeToHealthy(port, nodes, startedAt, Number(values['healthy-timeout']) * 1000);
    const unhealthyBeforeHealthy = manager.linesWith(ENGINE_MARKED_UNHEALTHY);
    if (healthyMs === undefined) console.error(`not all ${nodes} nodes became healthy; manager said:\n${manager.output()}`);
    const atHealthy = sampleProcess(manager.pid);
    const callsAtHealthy = await hollow.snapshotCalls();
    // V8 gives back the start-up's garbage only once its memory reducer runs on a quiet process
    await sleep(settleMs);
    const settled = sampleProcess(manager.pid);
    const peak = new PeakRss(manager.pid);
    const loadAtStart = loadNow();
    console.error(`${nodes} nodes: healthy after ${Math.round(healthyMs ?? -1)} ms; measuring`);
    const phase = (name: string): void => {
      peak.phase(name);
      mark(name);
    };
    phase('info');
    const info = await infoLatency(port, Number(values['info-runs']));
    mark('info replay');
    const infoReplay = await infoReplayLatency(port, Number(values['info-runs']));
    phase('ps -a');
    const ps = await psLatency(port, Number(values['ps-runs']));
    phase('run -d');
    const run = await runLatency(port, Number(values.runs), Number(values['run-workers']));
    phase('creates');
    const creates = await createThroughput(port, Number(values.creates), Number(values['create-workers']));
    mark('end of measurements');
    peak.stop();
    const after = sampleProcess(manager.pid);
    await sleep(settleMs);
    const settledAfterRun = sampleProcess(manager.pid);
    const { rssMb: hollowRssMb, cpuSeconds: hollowCpuSeconds } = hollow.sample();
    await manager.stop();
    const callsAtEnd = await hollow.snapshotCalls();
    const profile = profileDir === undefined ? undefined : readProfile(profileDir);
    return {
      nodes,
      containers,
      healthyMs,
      info,
      infoReplay,
      ps,
      run,
      runEngineDelayMs,
      runWorkers: Number(values['run-workers']),
      creates,
      createWorkers: Number(values['create-workers']),
      settleSeconds: settleMs / 1000,
      managerRssMb: {
        afterHealthy: atHealthy.rssMb,
        settled: settled.rssMb,
        peak: peak.peakMb,
        peakByPhase: peak.byPhase,
        settledAfterRun: settledAfterRun.rssMb,
      },
      managerCpuSeconds: { toHealthy: atHealthy.cpuSeconds, measuring: after.cpuSeconds - settled.cpuSeconds },
      enginesMarkedUnhealthy: {
        untilHealthy: unhealthyBeforeHealthy,
        afterwards: manager.linesWith(ENGINE_MARKED_UNHEALTHY) - unhealthyBeforeHealthy,
      },
      hollowProcesses,
      hollowRssMb,
      hollowCpuSeconds,
      callsAtHealthy,
      callsAtEnd,
      load: { start: loadAtStart, end: loadNow() },
      ...(profile === undefined ? {} : { hotSpots: `${selfTimeByPackage(profile)}\n\n${hotSpotTable(hotSpots(profile))}` }),
    };
  } finally {
    await manager.stop();
    await hollow.stop();
    if (profileDir !== undefined) rmSync(profileDir, { recursive: true, force: true });
  }
}

const sections: string[] = [];
const header = [
  '# Scale benchmark: swarm manage in front of hollow engines',
  '',
  `- Date: ${date}`,
  `- Machine: ${machine()}`,
  `- Command: \`npx tsc -p test/bench/scale && ${command}\``,
  `- Hollow delay: ${values.delay === undefined ? 'measured real-engine latencies (test/bench/hollow/README.md)' : `${values.delay} ms per call`}; manager: \`${values['manager-flags'] ? `node ${values['manager-flags']} ` : ''}swarm manage\`, swarm driver, default filters, spread; client: dockerode`,
  '',
].join('\n');

mkdirSync(RESULTS, { recursive: true });
let port = Number(values.port);
for (const nodes of values.nodes.split(',').map(Number)) {
  const result = await measure(nodes, port++);
  sections.push(resultSection(result));
  writeFileSync(out, `${header}\n${sections.join('\n\n')}\n`);
  console.error(resultSection(result));
}
console.error(`results: ${out}`);
