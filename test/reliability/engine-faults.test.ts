import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerOk, sleep, startApiCluster, type ApiCluster } from '../e2e/api-support.js';

// Engines 183-185 behind `swarm manage` on port 26160 with the default liveness settings, and
// engines 186-187 behind a manager on port 26161 with a reschedule grace period. Indexes 183-187
// and ports 26160-26169 belong to this file.
const PORT = 26160;
const GRACE_PORT = 26161;
const GRACE_MS = 10_000;
const TESTBED_ROOT = process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed';

let cluster: ApiCluster;

beforeAll(async () => {
  cluster = await startApiCluster(183, 3, PORT);
});

afterAll(async () => {
  await cluster?.stop();
  // dockerd killed with -9 leaves its containerd behind
  for (const index of [183, 184, 185, 186, 187]) {
    try {
      process.kill(Number(readFileSync(`${TESTBED_ROOT}/engine${index}/exec/containerd/containerd.pid`, 'utf8')), 'SIGKILL');
    } catch {
      // not running
    }
  }
});

function enginePid(index: number): number {
  return Number(readFileSync(`${TESTBED_ROOT}/engine${index}/pid`, 'utf8'));
}

/** Each node's `└ Status` in Swarm classic's /info rows. */
async function nodeStatuses(port: number): Promise<Map<string, string>> {
  const info = (await (await fetch(`http://127.0.0.1:${port}/info`)).json()) as { SystemStatus: Array<[string, string]> };
  const statuses = new Map<string, string>();
  let node = '';
  for (const [key, value] of info.SystemStatus) {
    if (/^ ?[^ └]/.test(key) && /^node\d+$/.test(key.trim())) node = key.trim();
    else if (key.trim() === '└ Status') statuses.set(node, value);
  }
  return statuses;
}

/** Resolves with the time (performance.now()) the node first shows `status`. */
async function whenStatus(port: number, node: string, status: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if ((await nodeStatuses(port)).get(node) === status) return performance.now();
    await sleep(25);
  }
  throw new Error(`${node} did not turn ${status} within ${timeoutMs} ms`);
}

interface CreateResult {
  startedAt: number;
  endedAt: number;
  ok: boolean;
  message: string;
}

/** `clients` loops creating containers through the manager until `stop()`. */
function createLoad(port: number, clients: number) {
  const results: CreateResult[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const startedAt = performance.now();
      let ok = false;
      let message: string;
      try {
        const answer = await fetch(`http://127.0.0.1:${port}/containers/create`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ Image: 'busybox:local', Cmd: ['true'] }),
          signal: AbortSignal.timeout(30_000),
        });
        ok = answer.status === 201;
        message = ok ? '' : ((await answer.json()) as { message: string }).message;
      } catch (error) {
        message = (error as Error).message;
      }
      results.push({ startedAt, endedAt: performance.now(), ok, message });
    }
  });
  return {
    results,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Failures of requests sent after the first failure ended: the cluster should have learnt by then. */
function failuresAfterFirst(results: readonly CreateResult[]): CreateResult[] {
  const first = results.filter((result) => !result.ok).sort((a, b) => a.endedAt - b.endedAt)[0];
  if (!first) return [];
  return results.filter((result) => !result.ok && result.startedAt > first.endedAt);
}

function report(name: string, figures: Record<string, number | string>): void {
  console.log(`engine faults, ${name}: ${JSON.stringify(figures)}`);
}

describe('an engine that dies under create load', () => {
  it('is marked Unhealthy within a second of stopping, costs no create after the first, and comes back', async () => {
    const load = createLoad(PORT, 4);
    await sleep(1500);
    const unhealthy = whenStatus(PORT, 'node184', 'Unhealthy', 30_000);
    await cluster.testbed.stopEngine(184);
    const stoppedAt = performance.now();
    const unhealthyAt = await unhealthy;
    await sleep(3000);
    await load.stop();
    const afterStop = load.results.filter((result) => result.endedAt > stoppedAt);
    const failed = load.results.filter((result) => !result.ok);
    const late = failuresAfterFirst(load.results);

    const restartedAt = performance.now();
    await cluster.testbed.startEngine(184);
    const upAt = performance.now();
    const healthyAt = await whenStatus(PORT, 'node184', 'Healthy', 60_000);
    report('stop', {
      creates: load.results.length,
      createsAfterStop: afterStop.length,
      failed: failed.length,
      failedAfterFirst: late.length,
      unhealthyMsAfterExit: Math.round(unhealthyAt - stoppedAt),
      healthyMsAfterEngineUp: Math.round(healthyAt - upAt),
      engineStartMs: Math.round(upAt - restartedAt),
    });
    expect(afterStop.length).toBeGreaterThan(10);
    expect(late.map((result) => result.message)).toEqual([]);
    expect(unhealthyAt - stoppedAt).toBeLessThanOrEqual(1000);
    // back within one refresh interval (the default minimum is 30 s)
    expect(healthyAt - upAt).toBeLessThanOrEqual(30_000);
  });

  it('is marked Unhealthy within 10 s when it hangs (SIGSTOP), other calls stay fast, and it comes back on SIGCONT', async () => {
    const load = createLoad(PORT, 4);
    await sleep(1500);
    const pid = enginePid(185);
    const unhealthy = whenStatus(PORT, 'node185', 'Unhealthy', 30_000);
    process.kill(pid, 'SIGSTOP');
    const frozenAt = performance.now();
    let unhealthyAt: number;
    const infoMs: number[] = [];
    try {
      const probing = (async () => {
        while (performance.now() - frozenAt < 12_000) {
          const started = performance.now();
          await fetch(`http://127.0.0.1:${PORT}/containers/json?all=1`).then((answer) => answer.arrayBuffer());
          infoMs.push(performance.now() - started);
          await sleep(100);
        }
      })();
      unhealthyAt = await unhealthy;
      await probing;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const resumedAt = performance.now();
    await load.stop();
    const healthyAt = await whenStatus(PORT, 'node185', 'Healthy', 60_000);
    // requests sent once the node showed Unhealthy go elsewhere; those in flight at the freeze wait for the request timeout
    const lateFailures = load.results.filter((result) => !result.ok && result.startedAt > unhealthyAt);
    report('SIGSTOP', {
      creates: load.results.length,
      failed: load.results.filter((result) => !result.ok).length,
      failedAfterUnhealthy: lateFailures.length,
      unhealthyMsAfterFreeze: Math.round(unhealthyAt - frozenAt),
      psMaxMsDuringHang: Math.round(Math.max(...infoMs)),
      healthyMsAfterResume: Math.round(healthyAt - resumedAt),
    });
    expect(unhealthyAt - frozenAt).toBeLessThanOrEqual(10_000);
    expect(lateFailures.map((result) => result.message)).toEqual([]);
    expect(Math.max(...infoMs)).toBeLessThan(2000);
    expect(healthyAt - resumedAt).toBeLessThanOrEqual(30_000);
  });

  it('is marked Unhealthy within a second of kill -9 and costs no create after the first', async () => {
    const load = createLoad(PORT, 4);
    await sleep(1500);
    const unhealthy = whenStatus(PORT, 'node183', 'Unhealthy', 30_000);
    process.kill(enginePid(183), 'SIGKILL');
    const killedAt = performance.now();
    const unhealthyAt = await unhealthy;
    await sleep(3000);
    await load.stop();
    const late = failuresAfterFirst(load.results);
    report('kill -9', {
      creates: load.results.length,
      failed: load.results.filter((result) => !result.ok).length,
      failedAfterFirst: late.length,
      unhealthyMsAfterKill: Math.round(unhealthyAt - killedAt),
    });
    expect(unhealthyAt - killedAt).toBeLessThanOrEqual(1000);
    expect(late.map((result) => result.message)).toEqual([]);
    expect(cluster.manager.running()).toBe(true);
  });
});

describe('a reschedule grace period', () => {
  let graceCluster: ApiCluster;

  beforeAll(async () => {
    graceCluster = await startApiCluster(186, 2, GRACE_PORT, ['--cluster-opt', `swarm.reschedule.grace=${GRACE_MS / 1000}s`]);
  });

  afterAll(async () => {
    await graceCluster?.stop();
  });

  async function copies(): Promise<string[]> {
    const out = await dockerOk(graceCluster.host, ['ps', '-a', '--filter', 'name=graced', '--format', '{{.Names}}']);
    return out.split('\n').filter(Boolean).sort();
  }

  it('moves nothing for an outage shorter than the grace, and reschedules after it', async () => {
    await dockerOk(graceCluster.host, [
      'run',
      '-d',
      '--name',
      'graced',
      '-e',
      'reschedule:on-node-failure',
      'busybox:local',
      'sleep',
      '3600',
    ]);
    const [first] = await copies();
    const node = first!.split('/')[0]!;
    const index = Number(node.replace('node', ''));
    const other = node === 'node186' ? 'node187' : 'node186';

    // a short outage (the engine frozen until the node shows Unhealthy, then let go), over well within the grace
    const shortUnhealthy = whenStatus(GRACE_PORT, node, 'Unhealthy', 15_000);
    const pid = enginePid(index);
    process.kill(pid, 'SIGSTOP');
    let shortDownAt: number;
    try {
      shortDownAt = await shortUnhealthy;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await whenStatus(GRACE_PORT, node, 'Healthy', 30_000);
    const backMs = performance.now() - shortDownAt;
    expect(backMs).toBeLessThan(GRACE_MS - 2_000);
    await sleep(GRACE_MS + 2_000 - backMs);
    expect(await copies(), graceCluster.manager.output().slice(-4000)).toEqual([`${node}/graced`]);

    // a long one: rescheduled once the grace ends (counted from the moment the node shows Unhealthy)
    const unhealthy = whenStatus(GRACE_PORT, node, 'Unhealthy', 30_000);
    const stopping = performance.now();
    await graceCluster.testbed.stopEngine(index);
    const stoppedMs = performance.now() - stopping;
    const unhealthyAt = await unhealthy;
    await sleep(GRACE_MS - 3_000);
    expect((await copies()).some((name) => name.startsWith(other))).toBe(false);
    const deadline = performance.now() + 30_000;
    while (!(await copies()).some((name) => name.startsWith(other)) && performance.now() < deadline) await sleep(100);
    const movedMs = performance.now() - unhealthyAt;
    report(`grace ${GRACE_MS / 1000}s`, {
      rescheduledMsAfterUnhealthy: Math.round(movedMs),
      shortOutageMs: Math.round(backMs),
      unhealthyMsAfterStopStarted: Math.round(unhealthyAt - stopping),
      stopMs: Math.round(stoppedMs),
    });
    expect(await copies()).toContain(`${other}/graced`);
    // the status poll sees Unhealthy up to one poll late
    expect(movedMs).toBeGreaterThanOrEqual(GRACE_MS - 100);
  });
});
