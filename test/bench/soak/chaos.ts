import type { FaultLog } from './faults.js';
import type { Fleet } from './fleet.js';
import type { ManagedManager } from './managers.js';
import type { Store } from './store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const between = (low: number, high: number): number => low + Math.random() * (high - low);

/**
 * A tenth of the engines (20 of the hour's 200) flap, the discovery entries of the next tenth come
 * and go, the rest stay put.
 */
const faultyShare = (engines: number): number => Math.max(1, Math.min(20, Math.floor(engines / 10)));

export interface ChaosOptions {
  fleet: Fleet;
  store: Store;
  faults: FaultLog;
  a: ManagedManager;
  b: ManagedManager;
  endAt: number;
  /** Failovers at these times (epoch ms). */
  failoverAt: readonly number[];
  note: (line: string) => void;
}

/** The injected faults, each ended (engine back, entry back, roles settled) before the load stops. */
export class Chaos {
  failovers = 0;
  flaps = 0;
  churns = 0;

  constructor(private readonly options: ChaosOptions) {}

  run(): Promise<void> {
    return Promise.all([this.flapping(), this.churning(), this.failingOver()]).then(() => undefined);
  }

  /** One engine at a time: down for 5-20 s, back, a pause of 5-15 s. */
  private async flapping(): Promise<void> {
    const { fleet, faults, endAt } = this.options;
    while (Date.now() < endAt - 30_000) {
      const engine = Math.floor(Math.random() * faultyShare(fleet.engines.length));
      const fault = faults.begin({ kind: 'engine-down', engine, detail: `${fleet.engines[engine]!.name} stopped` });
      await fleet.stopEngine(engine);
      await sleep(between(5_000, 20_000));
      await fleet.restartEngine(engine);
      faults.end(fault);
      this.flaps++;
      await sleep(between(5_000, 15_000));
    }
  }

  /** One discovery entry at a time: gone for 10-30 s, back, a pause of 5-15 s. */
  private async churning(): Promise<void> {
    const { fleet, store, faults, endAt } = this.options;
    while (Date.now() < endAt - 40_000) {
      const share = faultyShare(fleet.engines.length);
      const engine = share + Math.floor(Math.random() * share);
      const fault = faults.begin({ kind: 'entry-removed', engine, detail: `${fleet.addr(engine)} left discovery` });
      await store.unregister(fleet.addr(engine));
      await sleep(between(10_000, 30_000));
      await store.register(fleet.addr(engine));
      faults.end(fault);
      this.churns++;
      await sleep(between(5_000, 15_000));
    }
  }

  private async failingOver(): Promise<void> {
    for (const at of this.options.failoverAt) {
      await sleep(Math.max(0, at - Date.now()));
      await this.failover();
    }
  }

  /**
   * A (the measured manager) is never restarted: when it is primary the store takes its lock
   * away and it steps down to a replica; when B is primary, B is stopped (SIGKILL and SIGTERM in
   * turn) and started again as a replica. So A lives through every role change, and the soak's
   * failovers alternate between the two kinds.
   */
  private async failover(): Promise<void> {
    const { a, b, store, faults, note } = this.options;
    const aIsPrimary = (await a.role()).role === 'primary';
    const signal = this.failovers % 4 === 3 ? 'SIGKILL' : 'SIGTERM';
    const detail = aIsPrimary ? 'A loses its lock; B takes over' : `B stopped (${signal}) and restarted; A takes over`;
    const fault = faults.begin({ kind: 'failover', detail });
    note(`failover ${this.failovers + 1}: ${detail}`);
    try {
      if (aIsPrimary) {
        await store.dropLeader();
        await b.waitForRole('primary', 30_000);
        await a.waitForRole('replica', 30_000);
      } else {
        await b.stop(signal);
        await a.waitForRole('primary', 30_000);
        b.start();
        await b.waitForRole('replica', 60_000);
      }
    } catch (error) {
      note(`failover ${this.failovers + 1} did not settle: ${String(error)}`);
    }
    faults.end(fault);
    fault.detail += ` (${fault.end! - fault.start} ms)`;
    this.failovers++;
  }
}
