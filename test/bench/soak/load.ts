import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer, ApiClient } from './client.js';
import type { Failure } from './faults.js';
import type { Fleet } from './fleet.js';
import { Pacer } from './pacer.js';

/** The mix, by weight: every kind of request the issue names, the cheap ones most often. */
const MIX = [
  ['inspect', 18],
  ['ps', 14],
  ['run', 10],
  ['rm', 10],
  ['logs', 12],
  ['exec', 8],
  ['attach', 8],
  ['events', 8],
  ['explain', 12],
] as const;
type Op = (typeof MIX)[number][0];
const TOTAL_WEIGHT = MIX.reduce((sum, [, weight]) => sum + weight, 0);
/** Containers one loop keeps at most: run and rm balance around it, so the cluster does not grow. */
const POOL = 12;
/** How long after a failed rm the engines are asked whether they still hold the container. */
export const RM_SETTLE_MS = 1_000;
/** Share of requests sent to the manager that is not measured (B), the rest to A. */
const TO_B = 0.2;

interface Owned {
  id: string;
  engine: number | undefined;
  /** When and through which manager it was created, for the failure's record. */
  created: string;
  /** False while its start has not succeeded (a fault failed it): the loop starts it again first. */
  started: boolean;
}

export interface LoadOptions {
  a: ApiClient;
  b: ApiClient;
  fleet: Fleet;
  loops: number;
  callsPerSecond: number;
  endAt: number;
  startedAt: number;
  onFailure: (failure: Failure) => void;
}

/** Calls made, by request kind and per minute of the run. */
export class LoadCounts {
  readonly byOp = new Map<string, { calls: number; failed: number }>();
  readonly perMinute: number[] = [];
  total = 0;
  /** Failed rm calls after which no engine held the container: the removal happened, its answer was lost. */
  removedUnanswered = 0;

  count(op: string, minute: number, failed: boolean): void {
    const entry = this.byOp.get(op) ?? { calls: 0, failed: 0 };
    entry.calls++;
    if (failed) entry.failed++;
    this.byOp.set(op, entry);
    this.perMinute[minute] = (this.perMinute[minute] ?? 0) + 1;
    this.total++;
  }
}

function pick(): Op {
  let roll = Math.random() * TOTAL_WEIGHT;
  for (const [op, weight] of MIX) {
    roll -= weight;
    if (roll < 0) return op;
  }
  return 'inspect';
}

const PS_QUERIES = [
  '/containers/json?limit=10',
  `/containers/json?filters=${encodeURIComponent(JSON.stringify({ label: ['soak=1'] }))}`,
  `/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ name: ['soak-w1-'] }))}`,
  '/containers/json?all=1',
];

/** The steady mix of requests: `loops` loops sharing one pace, each with its own containers. */
export class Load {
  readonly counts = new LoadCounts();
  private readonly pacer: Pacer;

  constructor(private readonly options: LoadOptions) {
    this.pacer = new Pacer(options.callsPerSecond);
  }

  async run(): Promise<void> {
    const loops = Array.from({ length: this.options.loops }, (_, index) => this.loop(index));
    const streams = [0, 1].map(() => this.eventStreams());
    await Promise.all([...loops, ...streams]);
  }

  private minute(): number {
    return Math.floor((Date.now() - this.options.startedAt) / 60_000);
  }

  /** One call: paced, counted, and checked against the status Docker gives when all is well. */
  private async call(
    op: string,
    manager: 'A' | 'B',
    method: string,
    path: string,
    expect: number | readonly number[],
    body?: unknown,
    engine?: number,
    about?: Owned,
  ): Promise<Answer | undefined> {
    await this.pacer.take();
    const client = manager === 'A' ? this.options.a : this.options.b;
    const answer = await client.call(method, path, body);
    const failed = typeof expect === 'number' ? answer.status !== expect : !expect.includes(answer.status);
    this.counts.count(op, this.minute(), failed);
    if (!failed) return answer;
    this.options.onFailure({
      at: Date.now(),
      op,
      manager,
      status: answer.status,
      message: (answer.error ?? answer.body).slice(0, 300) + (about === undefined ? '' : ` [${this.aboutContainer(about)}]`),
      ...(engine === undefined ? {} : { engine }),
    });
    return undefined;
  }

  /** Where the container came from and whether an engine holds it now: a 404 for one an engine holds is swarm's loss. */
  private aboutContainer(about: Owned): string {
    const holder = this.options.fleet.engineOf(about.id);
    return `container created ${about.created}; ${holder === undefined ? 'on no engine now' : `on engine ${holder} now`}`;
  }

  private async loop(index: number): Promise<void> {
    const pool: Owned[] = [];
    let serial = 0;
    while (Date.now() < this.options.endAt) {
      let op = pick();
      if ((op === 'rm' && pool.length === 0) || (op === 'run' && pool.length >= POOL)) op = op === 'rm' ? 'run' : 'rm';
      const needsContainer = !['ps', 'events', 'explain', 'run'].includes(op);
      if (needsContainer && pool.length === 0) op = 'run';
      const manager = Math.random() < TO_B ? 'B' : 'A';
      const target = pool[Math.floor(Math.random() * pool.length)];
      if (needsContainer && op !== 'rm' && target !== undefined && !target.started) {
        await this.start(manager, target);
        continue;
      }
      switch (op) {
        case 'run':
          await this.runOne(manager, pool, `soak-w${index}-${serial++}`);
          break;
        case 'rm': {
          const owned = pool.shift()!;
          const done = await this.call('rm', manager, 'DELETE', `/containers/${owned.id}?force=1`, 204, undefined, owned.engine, owned);
          // An rm whose answer was lost to a fault (a manager killed while forwarding it, an engine's
          // connection dropped as it stopped or its discovery entry left) may still have removed the
          // container: the engines, which the soak holds, say whether it is there to be used and
          // removed again. Asked only once the removal has settled: an engine finishes a removal it
          // had begun when the connection dropped (the hollow engine after its call delay, as dockerd
          // does), and asked at once it still holds a container it is about to remove.
          if (done === undefined) {
            await sleep(RM_SETTLE_MS);
            if (this.options.fleet.engineOf(owned.id) !== undefined) pool.push(owned);
            else this.counts.removedUnanswered++;
          }
          break;
        }
        case 'ps':
          await this.call('ps', manager, 'GET', PS_QUERIES[Math.random() < 0.02 ? 3 : Math.floor(Math.random() * 3)]!, 200);
          break;
        case 'inspect':
          await this.call('inspect', manager, 'GET', `/containers/${target!.id}/json`, 200, undefined, target!.engine, target);
          break;
        case 'logs':
          await this.call(
            'logs',
            manager,
            'GET',
            `/containers/${target!.id}/logs?stdout=1&stderr=1&tail=10`,
            200,
            undefined,
            target!.engine,
            target,
          );
          break;
        case 'attach':
          await this.call(
            'attach',
            manager,
            'POST',
            `/containers/${target!.id}/attach?stream=1&stdout=1`,
            200,
            undefined,
            target!.engine,
            target,
          );
          break;
        case 'exec':
          await this.execOne(manager, target!);
          break;
        case 'events': {
          const now = Math.floor(Date.now() / 1000);
          await this.call('events', manager, 'GET', `/events?since=${now - 30}&until=${now}`, 200);
          break;
        }
        case 'explain':
          await this.call('explain', manager, 'POST', '/_swarm/v1/explain', 200, {
            Image: 'busybox:local',
            Cmd: ['true'],
            Labels: { soak: '1' },
          });
          break;
      }
    }
  }

  private async runOne(manager: 'A' | 'B', pool: Owned[], name: string): Promise<void> {
    const body = { Image: 'busybox:local', Cmd: ['sleep', '86400'], Labels: { soak: '1' } };
    const created = await this.call('run', manager, 'POST', `/containers/create?name=${name}`, 201, body);
    if (created === undefined) return;
    const id = (JSON.parse(created.body) as { Id: string }).Id;
    const owned: Owned = {
      id,
      engine: this.options.fleet.engineOf(id),
      created: `at ${Math.round((Date.now() - this.options.startedAt) / 1000)} s through ${manager}`,
      started: false,
    };
    pool.push(owned);
    await this.start(manager, owned);
  }

  private async start(manager: 'A' | 'B', owned: Owned): Promise<void> {
    // 304: already running, as when an earlier start's answer was lost to a fault; the CLI takes it as success
    const started = await this.call('run', manager, 'POST', `/containers/${owned.id}/start`, [204, 304], undefined, owned.engine, owned);
    owned.started = started !== undefined;
  }

  private async execOne(manager: 'A' | 'B', target: Owned): Promise<void> {
    const body = { AttachStdout: true, AttachStderr: true, Cmd: ['true'] };
    const created = await this.call('exec', manager, 'POST', `/containers/${target.id}/exec`, 201, body, target.engine, target);
    if (created === undefined) return;
    const execId = (JSON.parse(created.body) as { Id: string }).Id;
    await this.call('exec', manager, 'POST', `/exec/${execId}/start`, 200, { Detach: false, Tty: false }, target.engine);
    await this.call('exec', manager, 'GET', `/exec/${execId}/json`, 200, undefined, target.engine);
  }

  /** `docker events` clients that stay 20 s each and leave, one after another, until the end. */
  private async eventStreams(): Promise<void> {
    while (Date.now() < this.options.endAt) {
      const holdMs = Math.min(20_000, this.options.endAt - Date.now());
      const manager = Math.random() < TO_B ? 'B' : 'A';
      const client = manager === 'A' ? this.options.a : this.options.b;
      const answer = await client.stream('/events', holdMs);
      const failed = answer.status !== 200;
      this.counts.count('events (stream)', this.minute(), failed);
      if (failed) {
        this.options.onFailure({
          at: Date.now(),
          op: 'events (stream)',
          manager,
          status: answer.status,
          message: answer.error ?? answer.body,
        });
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
}
