import type { Cluster, ClusterEvent } from '@swarm/plugin-sdk';

export type EventListener = (event: ClusterEvent) => void;

/**
 * The cluster's merged event stream with a bounded in-memory history, so `docker events --since`
 * can replay what happened before the client connected.
 */
export class EventHistory {
  private readonly buffer: ClusterEvent[] = [];
  /** Each kept event's time, computed once: a `--since` replay compares every kept event's. */
  private readonly times: bigint[] = [];
  /**
   * The latest time among the events up to each index. Engines' events arrive merged, not sorted
   * by time, so `times` cannot be searched; this can (it never decreases), and every event before
   * the first index where it reaches `since` is older than `since`. After a trim it still bounds
   * the kept events' times from above, which is all the search needs.
   */
  private readonly latest: bigint[] = [];
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
    const previous = this.latest.at(-1);
    this.buffer.push(event);
    this.times.push(time);
    this.latest.push(previous !== undefined && previous > time ? previous : time);
    // trimmed once it holds twice the history, not at every event: each trim moves the whole array
    if (this.buffer.length >= 2 * this.capacity) {
      const drop = this.buffer.length - this.capacity;
      this.buffer.splice(0, drop);
      this.times.splice(0, drop);
      this.latest.splice(0, drop);
    }
    for (const listener of this.listeners) listener(event);
  }

  /** The last `capacity` events, oldest first. */
  past(): readonly ClusterEvent[] {
    return this.buffer.length > this.capacity ? this.buffer.slice(this.buffer.length - this.capacity) : this.buffer;
  }

  /** Calls `visit` with each kept event whose time is within `[since, until]` (either end open), oldest first. */
  replay(since: bigint | undefined, until: bigint | undefined, visit: EventListener): void {
    const first = Math.max(0, this.buffer.length - this.capacity);
    const start = since === undefined ? first : this.firstReaching(since, first);
    for (let index = start; index < this.buffer.length; index++) {
      const time = this.times[index]!;
      if ((since === undefined || time >= since) && (until === undefined || time <= until)) visit(this.buffer[index]!);
    }
  }

  /** The first index from `from` on whose running latest time is at least `time`. */
  private firstReaching(time: bigint, from: number): number {
    let low = from;
    let high = this.latest.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.latest[middle]! < time) low = middle + 1;
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
