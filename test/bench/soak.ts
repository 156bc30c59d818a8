/**
 * The soak (issue 34, item 5): two replicated managers on etcd in front of 200 hollow engines,
 * under a steady mix of API calls for an hour (or `--minutes N`), with engines flapping,
 * discovery entries coming and going and a failover every few minutes; then checks that manager A
 * (never restarted) kept its memory, descriptors and event loop flat, that every failed request
 * is explained by an injected fault, and that `docker ps -a` matches the engines. Exit status 0
 * when every check holds. Writes the run's report and samples to test/.artifacts/soak/ (or --out).
 *
 *   npm run soak                      (60 minutes)
 *   npm run soak -- --minutes 3       (the short variant: gross leaks only, see results/soak.md)
 *   npm run soak -- --cpu-profile     (also writes manager A's V8 CPU profile over the load)
 *   npm run soak -- --minutes 4 --base-minute 2 --engines 100 --rate 150 --loops 32
 *                                     (the CI variant, test/reliability/soak-short.test.ts)
 *
 * Ports: --port-base P (default 26330) and the next 5: etcd P, P+1; managers P+2, P+3; their
 * inspectors P+4, P+5. Engines listen on free ports of 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEtcd } from '../harness/services.js';
import { healthyNodeCountFromRows } from './soak/info-rows.js';
import { machineDescription } from './core-machine.js';
import { Chaos } from './soak/chaos.js';
import { ApiClient } from './soak/client.js';
import { FaultLog, type Failure } from './soak/faults.js';
import { Fleet } from './soak/fleet.js';
import { IdleBaseline } from './soak/idle-baseline.js';
import { Inspector } from './soak/inspector.js';
import { Load } from './soak/load.js';
import { ManagedManager } from './soak/managers.js';
import { renderReport } from './soak/report.js';
import { Sampler } from './soak/sampler.js';
import { requireFreePorts } from './soak/ports.js';
import { PREFIX, Store } from './soak/store.js';
import { checkTruth } from './soak/truth.js';
import { failoverTimes } from './soak/schedule.js';
import { baseMinuteFor, checks, CALLS_PER_SECOND_TARGET, windowSeconds } from './soak/verdict.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    engines: { type: 'string', default: '200' },
    containers: { type: 'string', default: '5' },
    rate: { type: 'string', default: '300' },
    loops: { type: 'string', default: '64' },
    'port-base': { type: 'string', default: '26330' },
    out: { type: 'string' },
    'cpu-profile': { type: 'boolean', default: false },
    'base-minute': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    `npm run soak -- [--minutes 60] [--engines 200] [--containers 5 per engine] [--rate 300 calls/s] [--loops 64] [--port-base 26330] [--out DIR] [--cpu-profile] [--base-minute M]`,
  );
  process.exit(0);
}

const minutes = Number(values.minutes);
const engines = Number(values.engines);
const portBase = Number(values['port-base']);
const date = new Date().toISOString();
const outDir = values.out ?? fileURLToPath(new URL('../../../../.artifacts/soak/', import.meta.url));
mkdirSync(outDir, { recursive: true });
const stem = join(outDir, `soak-${minutes}min-${date.replaceAll(':', '-').slice(0, 19)}`);
const log = (line: string): void => console.error(`soak ${new Date().toISOString().slice(11, 19)} ${line}`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const loadNow = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

async function waitForHealthy(client: ApiClient, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const info = await client.json<{ SystemStatus?: Array<[string, string]> }>('/info').catch(() => undefined);
    if (healthyNodeCountFromRows(info?.SystemStatus) >= count) return;
    await sleep(500);
  }
  throw new Error(`fewer than ${count} healthy nodes after ${timeoutMs} ms`);
}

await requireFreePorts(Array.from({ length: 6 }, (_, i) => portBase + i));
const loadAtStart = loadNow();
log(`starting etcd, ${engines} hollow engines and two managers (load ${loadAtStart})`);
const etcd = await startEtcd(portBase);
const fleet = await Fleet.start(engines, Number(values.containers));
const store = new Store(portBase);
for (let index = 0; index < engines; index++) await store.register(fleet.addr(index));
const discovery = `etcd://127.0.0.1:${portBase}/${PREFIX}`;
const a = new ManagedManager({ name: 'A', port: portBase + 2, inspectPort: portBase + 4, discovery, logFile: `${stem}-manager-a.log` });
const b = new ManagedManager({ name: 'B', port: portBase + 3, inspectPort: portBase + 5, discovery, logFile: `${stem}-manager-b.log` });
const clientA = new ApiClient(a.spec.port);
const clientB = new ApiClient(b.spec.port);
let exitCode = 1;
let cleaning: Promise<void> | undefined;
/** Stops what the soak started, once: at the end, or when interrupted (etcd and the managers would outlive it). */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    clientA.close();
    clientB.close();
    await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    a.close();
    b.close();
    store.close();
    await fleet.stop();
    await etcd.stop();
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the managers, the engines and etcd`);
    void cleanUp().finally(() => process.exit(130));
  });
}
try {
  // A first, so that it starts as the primary: the failovers then alternate from a known state.
  a.start();
  await a.waitForRole('primary', 60_000);
  b.start();
  await b.waitForRole('replica', 60_000);
  await waitForHealthy(clientA, engines, 180_000);
  log(`all ${engines} engines healthy; load for ${minutes} minutes`);

  const inspector = await Inspector.connect(a.spec.inspectPort);
  const startedAt = Date.now();
  const endAt = startedAt + minutes * 60_000;
  await inspector.resetTotal();
  if (values['cpu-profile']) await inspector.startProfile();
  const idle = new IdleBaseline();
  const sampler = new Sampler({ a, b, inspector, startedAt, intervalMs: 10_000 });
  sampler.start();
  const faults = new FaultLog();
  const failures: Failure[] = [];
  // Growth is judged from this minute on; a short run at a low rate may need it later than a sixth
  // of the run, as the manager's event history fills (10,000 events) during its first minutes.
  const baseMinute = values['base-minute'] === undefined ? baseMinuteFor(minutes) : Number(values['base-minute']);
  const failoverAt = failoverTimes(minutes, baseMinute, windowSeconds(minutes)).map((ms) => startedAt + ms);
  const chaos = new Chaos({ fleet, store, faults, a, b, endAt, failoverAt, note: log });
  const load = new Load({
    a: clientA,
    b: clientB,
    fleet,
    loops: Number(values.loops),
    callsPerSecond: Number(values.rate),
    endAt,
    startedAt,
    onFailure: (failure) => failures.push(failure),
  });
  const progress = setInterval(
    () => log(`${load.counts.total} calls, ${failures.length} failed, RSS ${sampler.samples.at(-1)?.rssMb?.toFixed(1)} MB`),
    30_000,
  );
  await Promise.all([load.run(), chaos.run()]);
  clearInterval(progress);
  await sampler.sample();
  sampler.stop();
  const loopTotal = await inspector.loopDelayTotal().catch(() => undefined);
  if (values['cpu-profile']) {
    writeFileSync(`${stem}-a.cpuprofile`, JSON.stringify(await inspector.stopProfile()));
    log(`A's CPU profile: ${stem}-a.cpuprofile`);
  }
  const loopIdle = await idle.stop();
  inspector.close();
  const loadAtEnd = loadNow();
  log(
    `load over: ${load.counts.total} calls (${(load.counts.total / (minutes * 60)).toFixed(0)}/s, target ${CALLS_PER_SECOND_TARGET.toFixed(0)}/s); checking docker ps`,
  );
  const truth = await checkTruth(clientA, fleet, 120_000);
  const classified = failures.map((failure) => ({
    ...failure,
    class: faults.classify(failure, fleet.engineNamedIn(failure.message)),
    t: Math.round((failure.at - startedAt) / 1000),
  }));
  const results = checks({
    minutes,
    baseMinute,
    samples: sampler.samples,
    loopTotal,
    loopIdle,
    calls: load.counts.total,
    unexplained: classified.filter((failure) => failure.class === 'unexplained').length,
    truthful: truth.equal,
    truthDetail: `${truth.equal ? 'equal' : `${truth.missing} missing, ${truth.extra} extra`}: ${truth.managerCount} listed, ${truth.enginesCount} on the engines, after ${truth.seconds} s`,
    aCrashed: a.pid === undefined,
  });
  const resent = { a: clientA.resentOnClosedKeepAlive, b: clientB.resentOnClosedKeepAlive };
  const report = renderReport({
    date,
    machine: machineDescription(),
    load: { start: loadAtStart, end: loadAtEnd },
    command: `npm run soak -- ${process.argv.slice(2).join(' ')}`.trim(),
    minutes,
    baseMinute,
    engines,
    checks: results,
    samples: sampler.samples,
    counts: load.counts,
    faults: faults.faults,
    failures: classified,
    bStarts: b.starts,
    resent,
  });
  writeFileSync(`${stem}.md`, report);
  const summary = {
    date,
    minutes,
    checks: results,
    calls: load.counts.total,
    resent,
    loopTotal,
    loopIdle,
    truth,
    samples: sampler.samples,
  };
  writeFileSync(`${stem}.json`, `${JSON.stringify({ ...summary, failures: classified, faults: faults.faults }, null, 1)}\n`);
  console.log(report);
  log(`report: ${stem}.md`);
  exitCode = results.every((check) => check.ok || check.kind === 'not judged') ? 0 : 1;
} catch (error) {
  log(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await cleanUp();
}
process.exit(exitCode);
