import { createServer, type Server } from 'node:http';
import type { AccessCluster } from '../access-support.js';
import { materialise, type Attack } from './attack.js';
import { answerLeaks } from './invariants.js';
import type { Wire, WireAnswer } from './wire.js';
import { bobState, inventory, judgeAndSweep, restoreBob, stateChanges, type Inventory, type World } from './world.js';

/**
 * One generated attack, run as alice for bob's objects and for nobody's, and judged by the three
 * invariants: (a) no answer holds bob's identifiers beyond what nobody's would; (b) bob's objects
 * are as they were; (c) nothing alice made runs with host escalation (or reaches bob's objects),
 * no build ran with host options, and no engine fetched a URL alice named.
 */

export interface Failure {
  readonly invariant: 'a' | 'b' | 'c';
  /** What class of hole this is (for de-duplication and for shrinking to the same hole). */
  readonly key: string;
  readonly detail: string;
}

export interface Outcome {
  readonly status: number;
  readonly nobodyStatus: number;
  readonly failures: readonly Failure[];
  /** The bob variant as written. */
  readonly request: string;
  readonly answer: string;
  readonly nobodyAnswer: string;
}

/** Records the requests engines make to the URLs alice names (`remote=`, `fromSrc=`). */
export class Hook {
  readonly hits: string[] = [];
  private server: Server | undefined;
  constructor(readonly port: number) {}
  get url(): string {
    return `http://127.0.0.1:${this.port}/fetched`;
  }
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.hits.push(`${req.method} ${req.url}`);
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '0.0.0.0', resolve));
  }
  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

export class Runner {
  private baseline: Map<string, string> | undefined;
  private known: Inventory | undefined;

  private readonly cluster: AccessCluster;
  private readonly world: World;
  private readonly wire: Wire;
  private readonly hook: Hook;

  constructor(options: { cluster: AccessCluster; world: World; wire: Wire; hook: Hook }) {
    this.cluster = options.cluster;
    this.world = options.world;
    this.wire = options.wire;
    this.hook = options.hook;
  }

  async start(): Promise<void> {
    this.baseline = await bobState(this.cluster.call, this.world);
    this.known = await inventory(this.cluster.call, this.world);
  }

  async run(attack: Attack): Promise<Outcome> {
    const { world } = this;
    const call = this.cluster.call;
    this.hook.hits.length = 0;
    const theirs = materialise(attack, world, 'bob', this.hook.url);
    const nobodys = materialise(attack, world, 'nobody', this.hook.url);
    const a: WireAnswer = await this.wire.send('alice', theirs.bytes);
    const b: WireAnswer = await this.wire.send('alice', nobodys.bytes);
    const failures: Failure[] = [];
    for (const leak of answerLeaks(world, a.bytes, b.bytes, theirs.pairs))
      failures.push({
        invariant: 'a',
        key: `a|${attack.family}|${leak.what}`,
        detail: `the answer holds bob's ${leak.what}: …${leak.excerpt}…`,
      });
    if (attack.method !== 'GET' && attack.method !== 'HEAD') {
      const after = await bobState(call, world);
      const changed = stateChanges(this.baseline!, after);
      for (const change of changed) {
        const object = change.split(':')[0]!;
        failures.push({ invariant: 'b', key: `b|${attack.family}|${object}`, detail: `bob's ${change}` });
      }
      if (changed.length > 0) {
        await restoreBob(call, world);
        this.baseline = await bobState(call, world);
      }
      for (const escalation of await judgeAndSweep(call, world, this.known!))
        failures.push({ invariant: 'c', key: `c|${attack.family}|${escalation.split(/ (?=\S*[/=])/)[0]}`, detail: escalation });
    }
    if (attack.asks.length > 0 && /42-ran-x/.test(a.bytes + b.bytes))
      failures.push({
        invariant: 'c',
        key: `c|build|${attack.asks.join(',')}`,
        detail: `a build ran its RUN step with ${attack.asks.join(', ')}`,
      });
    if (this.hook.hits.length > 0)
      failures.push({
        invariant: 'c',
        key: `c|${attack.family}|fetched`,
        detail: `an engine fetched the URL alice named: ${this.hook.hits.join(', ')}`,
      });
    return { status: a.status, nobodyStatus: b.status, failures, request: theirs.text, answer: a.bytes, nobodyAnswer: b.bytes };
  }
}
