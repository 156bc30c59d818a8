import type { Cluster, ClusterEvent } from '@swarm/plugin-sdk';

export type EventListener = (event: ClusterEvent) => void;

/**
 * The cluster's merged event stream with a bounded in-memory history, so `docker events --since`
 * can replay what happened before the client connected.
 */
export class EventHistory {
  /** A ring: once full, each new event takes the oldest one's place, so the history never holds more than `capacity`. */
  private readonly events: ClusterEvent[] = [];
  /** Each kept event's time, computed once: a `--since` replay compares every kept event's. */
  private readonly times: bigint[] = [];
  /**
   * The latest time among the events up to each one, oldest first. Engines' events arrive merged,
   * not sorted by time, so `times` cannot be searched; this can (it never decreases from the oldest
   * kept event to the newest), and every event before the first one where it reaches `since` is
   * older than `since`. Overwritten events only ever made it larger, so it still bounds every kept
   * event's time from above, which is all the search needs.
   */
  private readonly latest: bigint[] = [];
  /** Where the oldest kept event is, once the ring is full. */
  private oldest = 0;
  private readonly listeners = new Set<EventListener>();
  private readonly unsubscribe: () => void;

  constructor(
    cluster: Pick<Cluster, 'subscribe'>,
    private readonly capacity = 10_000,
  ) {
    this.unsubscribe = cluster.subscribe((event) => this.record(event));
  }

  private record(event: ClusterEvent): void {
    const time = eventTimeNano(event);
    const count = this.events.length;
    const previous = count === 0 ? undefined : this.latest[this.slot(count - 1)]!;
    const latest = previous !== undefined && previous > time ? previous : time;
    if (count < this.capacity) {
      this.events.push(event);
      this.times.push(time);
      this.latest.push(latest);
    } else {
      this.events[this.oldest] = event;
      this.times[this.oldest] = time;
      this.latest[this.oldest] = latest;
      this.oldest = (this.oldest + 1) % this.capacity;
    }
    for (const listener of this.listeners) listener(event);
  }

  /** Where the `index`th kept event (0 the oldest) is. */
  private slot(index: number): number {
    return (this.oldest + index) % this.capacity;
  }

  /** Calls `visit` with each kept event whose time is within `[since, until]` (either end open), oldest first. */
  replay(since: bigint | undefined, until: bigint | undefined, visit: EventListener): void {
    const count = this.events.length;
    for (let index = since === undefined ? 0 : this.firstReaching(since); index < count; index++) {
      const slot = this.slot(index);
      const time = this.times[slot]!;
      if ((since === undefined || time >= since) && (until === undefined || time <= until)) visit(this.events[slot]!);
    }
  }

  /** The first kept event (0 the oldest) whose running latest time is at least `time`. */
  private firstReaching(time: bigint): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.latest[this.slot(middle)]! < time) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  listen(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }
}

/** An event's time in nanoseconds since the epoch. */
export function eventTimeNano(event: ClusterEvent): bigint {
  if (typeof event.timeNano === 'number') return BigInt(Math.trunc(event.timeNano));
  if (typeof event.time === 'number') return BigInt(Math.trunc(event.time)) * 1_000_000_000n;
  return 0n;
}
