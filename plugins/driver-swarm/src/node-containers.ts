import { requestedMemory } from '@swarm/plugin-sdk/helpers';
import type { EngineContainer } from './engine-container.js';

export interface ContainerCounts {
  total: number;
  running: number;
  paused: number;
  stopped: number;
}

/** Told after every change: what was there and what is there now (one of them may be missing). */
export type ContainerChange = (before: EngineContainer | undefined, after: EngineContainer | undefined) => void;

function isRunning(container: EngineContainer): boolean {
  return container.state === 'running' || container.state === 'restarting';
}

/**
 * One engine's containers as swarm keeps them: the engine's own by ID, the ones swarm is creating
 * there (by swarm ID, until the engine lists them), and the IDs of containers re-created elsewhere
 * while the engine was down, which a late answer must not bring back. Reservations and state
 * counts move with every change, so the scheduler's reads are O(1).
 */
export class NodeContainers {
  private readonly byId = new Map<string, EngineContainer>();
  private readonly pending = new Map<string, EngineContainer>();
  private readonly movedAway = new Set<string>();
  /** When a container that stopped was last known running. */
  private readonly lastRunning = new Map<string, number>();
  private list: EngineContainer[] | undefined;
  private reservedCpus = 0;
  private reservedMemory = 0;
  private readonly stateCounts = { running: 0, paused: 0 };

  constructor(private readonly onChange: ContainerChange) {}

  /** All of them, pending ones included. */
  all(): readonly EngineContainer[] {
    this.list ??= [...this.byId.values(), ...this.pending.values()];
    return this.list;
  }

  /** Exact ID, then name (`name` or `/name`), then a unique ID prefix. */
  find(idOrName: string): EngineContainer | undefined {
    if (idOrName === '') return undefined;
    const direct = this.byId.get(idOrName);
    if (direct) return direct;
    const slashed = idOrName.startsWith('/') ? idOrName : `/${idOrName}`;
    const all = [...this.byId.values()];
    const named = all.find((container) => container.names.includes(slashed));
    if (named) return named;
    const prefixed = all.filter((container) => container.id.startsWith(idOrName));
    return prefixed.length === 1 ? prefixed[0] : undefined;
  }

  /** Whether the container runs, or was still running at `time` (an engine going down stops its containers first). */
  ranSince(container: EngineContainer, time: number): boolean {
    return isRunning(container) || (this.lastRunning.get(container.id) ?? 0) >= time;
  }

  known(id: string): EngineContainer | undefined {
    return this.byId.get(id);
  }

  ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  counts(): ContainerCounts {
    const { running, paused } = this.stateCounts;
    return { total: this.byId.size, running, paused, stopped: this.byId.size - running - paused };
  }

  usedCpus(): number {
    return this.reservedCpus;
  }

  usedMemory(): number {
    return this.reservedMemory;
  }

  upsert(container: EngineContainer): void {
    if (this.movedAway.has(container.id)) return;
    this.replace(this.byId, container.id, container);
  }

  delete(id: string): void {
    if (this.byId.has(id)) this.replace(this.byId, id, undefined);
  }

  /** Forget a container being re-created elsewhere, until the engine answers again. */
  moveAway(id: string): void {
    this.movedAway.add(id);
    this.delete(id);
  }

  /** Put back a container whose move failed. */
  restore(container: EngineContainer): void {
    this.movedAway.delete(container.id);
    if (!this.byId.has(container.id)) this.upsert(container);
  }

  /** The engine answers again: what it lists is real (duplicates are the watchdog's to remove). */
  acceptMovedAway(): void {
    this.movedAway.clear();
  }

  addPending(swarmId: string, container: EngineContainer): void {
    this.replace(this.pending, swarmId, container);
  }

  removePending(swarmId: string): void {
    if (this.pending.has(swarmId)) this.replace(this.pending, swarmId, undefined);
  }

  /** Forget the engine's containers (the node left the cluster). */
  clear(): void {
    for (const id of [...this.byId.keys()]) this.delete(id);
  }

  private account(container: EngineContainer, sign: 1 | -1, started: boolean): void {
    this.reservedCpus += sign * container.reservedCpus;
    this.reservedMemory += sign * requestedMemory(container.config);
    if (!started) return;
    if (container.state === 'paused') this.stateCounts.paused += sign;
    else if (isRunning(container)) this.stateCounts.running += sign;
  }

  private replace(map: Map<string, EngineContainer>, key: string, next: EngineContainer | undefined): void {
    const real = map === this.byId;
    const before = map.get(key);
    if (real && before && isRunning(before)) this.lastRunning.set(key, Date.now());
    if (real && !next) this.lastRunning.delete(key);
    if (before) this.account(before, -1, real);
    if (next) {
      map.set(key, next);
      this.account(next, 1, real);
    } else {
      map.delete(key);
    }
    this.list = undefined;
    this.onChange(before, next);
  }
}
