/**
 * Replicated managers: time from SIGKILL of the primary until a replica is primary and serving,
 * 10 failovers per store (ZooKeeper, etcd), two `swarm manage --replication --replication-ttl 5s`
 * processes at a time (the killed one is replaced by a fresh replica before the next round).
 * Baseline in the same run: a graceful stop (SIGTERM, the primary releases the lock), i.e. what
 * detection and takeover cost without waiting for the store to expire anything. All the while
 * every manager's /info is polled to check that two never say `Role: primary` at once.
 * Writes test/bench/results/failover.md.
 *
 *   npm run bench:failover            (BENCH_ROUNDS=10, BENCH_TTL=5)
 *
 * Ports 25700-25731 (stores 25700-25711, managers 25720-25731), no engines. Compiled to the
 * repository's top-level dist/ (ignored by git) so the harness finds core/dist/cli/bin.js by the
 * same relative path as from test/harness/.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startManager, type Manager } from '../harness/manager.js';
import { startEtcd, startZooKeeper, type Service } from '../harness/services.js';
import { killManager, PrimaryWatch, primariesAmong, readRole } from '../e2e/replication-support.js';
import { machineDescription, median } from './core-machine.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 10);
const GRACEFUL_ROUNDS = 3;
const TTL_SECONDS = Number(process.env['BENCH_TTL'] ?? 5);
const POLL_MS = 20;
const RESULTS = fileURLToPath(new URL('../../test/bench/results/failover.md', import.meta.url));

type Store = 'zk' | 'etcd';
const STORE_PORTS: Record<Store, number> = { zk: 25700, etcd: 25710 };
const MANAGER_PORTS: Record<Store, [number, number]> = { zk: [25720, 25721], etcd: [25730, 25731] };

interface Failover {
  /** kill → the survivor's own log says it took the lock. */
  elected: number;
  /** kill → the survivor answers /info as primary and serves /containers/json itself. */
  serving: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function lastElection(output: string): number {
  const lines = output.split('\n').filter((line) => line.includes('Cluster leadership acquired'));
  return (JSON.parse(lines.at(-1) ?? '{"time":NaN}') as { time: number }).time;
}

async function servesAsPrimary(port: number): Promise<boolean> {
  if ((await readRole(port)).role !== 'primary') return false;
  const answer = await fetch(`http://127.0.0.1:${port}/containers/json`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
  return answer?.status === 200;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return Date.now();
    await sleep(POLL_MS);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

class Pair {
  readonly managers = new Map<number, Manager>();

  constructor(private readonly discovery: string) {}

  start(port: number): Promise<void> {
    return startManager({
      discovery: this.discovery,
      port,
      expectNodes: 0,
      timeoutMs: 60_000,
      args: ['--replication', '--advertise', `127.0.0.1:${port}`, '--replication-ttl', `${TTL_SECONDS}s`, '--heartbeat', '1s'],
    }).then((manager) => {
      this.managers.set(port, manager);
    });
  }

  /** Stops the primary (kill -9 or SIGTERM) and times the survivor's takeover; then a fresh replica replaces it. */
  async failover(mode: 'kill' | 'graceful'): Promise<Failover> {
    const ports = [...this.managers.keys()];
    const [primary] = await primariesAmong(ports);
    if (primary === undefined) throw new Error('no primary before the round');
    const survivor = ports.find((port) => port !== primary)!;
    const manager = this.managers.get(primary)!;
    let stoppedAt: number;
    if (mode === 'kill') stoppedAt = await killManager(manager);
    else {
      stoppedAt = Date.now();
      await manager.stop();
    }
    const servingAt = await until(() => servesAsPrimary(survivor), 'the survivor to serve as primary', TTL_SECONDS * 4000);
    const elected = lastElection(this.managers.get(survivor)!.output()) - stoppedAt;
    this.managers.delete(primary);
    await this.start(primary);
    await until(async () => (await readRole(primary)).primary === `127.0.0.1:${survivor}`, 'the new replica to follow the primary', 30_000);
    return { elected, serving: servingAt - stoppedAt };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.managers.values()].map((manager) => manager.stop()));
  }
}

interface StoreResult {
  store: Store;
  kills: Failover[];
  graceful: Failover[];
  rounds: number;
  overlaps: string[];
  warnings: string[];
}

async function benchStore(store: Store): Promise<StoreResult> {
  const service: Service = store === 'zk' ? await startZooKeeper(STORE_PORTS[store]) : await startEtcd(STORE_PORTS[store]);
  const pair = new Pair(`${store}://${service.addr}/failover-bench`);
  const ports = MANAGER_PORTS[store];
  try {
    await Promise.all(ports.map((port) => pair.start(port)));
    await until(async () => (await primariesAmong(ports)).length === 1, 'a first primary', 30_000);
    const watch = new PrimaryWatch(ports);
    const graceful: Failover[] = [];
    const kills: Failover[] = [];
    for (let round = 0; round < GRACEFUL_ROUNDS; round++) graceful.push(await pair.failover('graceful'));
    for (let round = 0; round < ROUNDS; round++) {
      // Kill at different points of the renewal and server-tick cycles.
      await sleep((round * 373) % 2000);
      const result = await pair.failover('kill');
      console.log(`${store} round ${round + 1}: elected ${result.elected} ms, serving ${result.serving} ms after kill -9`);
      kills.push(result);
    }
    await watch.stop();
    const warnings = [...pair.managers.values()].flatMap((manager) =>
      manager
        .output()
        .split('\n')
        .filter((line) => line.includes('cannot honour') || line.includes('can take up to')),
    );
    return { store, kills, graceful, rounds: watch.rounds, overlaps: watch.overlaps, warnings };
  } finally {
    await pair.stop();
    await service.stop();
  }
}

const stats = (values: readonly number[]) => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) });

function table(results: readonly StoreResult[]): string[] {
  const ttl = TTL_SECONDS * 1000;
  const lines = ['| store | measure | min | median | max | max / TTL |', '| --- | --- | ---: | ---: | ---: | ---: |'];
  for (const result of results) {
    for (const [label, runs, key] of [
      ['kill -9 → elected (log)', result.kills, 'elected'],
      ['kill -9 → serving as primary', result.kills, 'serving'],
      ['clean handover: SIGTERM → serving', result.graceful, 'serving'],
    ] as const) {
      const s = stats(runs.map((run) => run[key]));
      lines.push(
        `| ${result.store} | ${label} (${runs.length}) | ${s.min} ms | ${s.median} ms | ${s.max} ms | ${(s.max / ttl).toFixed(2)} |`,
      );
    }
  }
  return lines;
}

function handoverVerdict(results: readonly StoreResult[]): string {
  const worst = Math.max(...results.flatMap((result) => result.graceful.map((run) => run.serving)));
  return `${worst <= 1000 ? 'met' : 'NOT met'} (worst ${worst} ms over ${results.map((result) => `${result.graceful.length} ${result.store}`).join(' and ')} rounds)`;
}

const machine = machineDescription();
const results: StoreResult[] = [];
for (const store of ['zk', 'etcd'] as const) results.push(await benchStore(store));
const report = [
  '# Replicated managers: failover after kill -9 of the primary, and clean handovers',
  '',
  `Machine: ${machine}`,
  `Command: \`npm run bench:failover\` (BENCH_ROUNDS=${ROUNDS}, --replication-ttl ${TTL_SECONDS}s, --heartbeat 1s, two managers, stores from test/harness/services.ts: ZooKeeper 3.8 tickTime 2000 minSessionTimeout 2000, etcd 3.4 defaults)`,
  '',
  `Target: a replica is primary and serving within the TTL (${TTL_SECONDS * 1000} ms). "serving" is seen by polling every ${POLL_MS} ms.`,
  "Before issue #7's fix (session timeout and lease = the TTL, measured by hand, TTL 5 s): zk 3.7–6.5 s, etcd 3.7–5.4 s.",
  '',
  ...table(results),
  '',
  `Clean handover (issue #34): a primary stopped with SIGTERM gives the lock up before it drains its requests, so a replica serves as primary within 1000 ms: ${handoverVerdict(results)}.`,
  '',
  ...results.map(
    (result) =>
      `- ${result.store}: ${result.rounds} polling rounds of both managers' /info, ${result.overlaps.length} with two primaries${result.overlaps.length ? `: ${result.overlaps.join('; ')}` : ''}; TTL warnings logged: ${result.warnings.length}`,
  ),
  '',
  'Each round kills the primary at a different point of its renewal cycle (a pause of round × 373 ms mod 2 s first).',
  'Per-round values (serving, ms): ' +
    results.map((result) => `${result.store} ${result.kills.map((run) => run.serving).join(', ')}`).join('; '),
  '',
];
writeFileSync(RESULTS, report.join('\n'));
console.log(report.join('\n'));
