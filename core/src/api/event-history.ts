import type { Cluster, ClusterEvent } from '@swarm/plugin-sdk';

export type EventListener = (event: ClusterEvent) => void;

/**
 * The cluster's merged event stream with a bounded in-memory history, so `docker events --since`
 * can replay what happened before the client connected.
 */
export class EventHistory {
  private readonly buffer: ClusterEvent[] = [];
  private readonly listeners = new Set<EventListener>();
  private readonly unsubscribe: () => void;

  constructor(
    cluster: Pick<Cluster, 'subscribe'>,
    private readonly capacity = 10_000,
  ) {
    this.unsubscribe = cluster.subscribe((event) => this.record(event));
  }

  private record(event: ClusterEvent): void {
    this.buffer.push(event);
    // trimmed once it holds twice the history, not at every event: each trim moves the whole array
    if (this.buffer.length >= 2 * this.capacity) this.buffer.splice(0, this.buffer.length - this.capacity);
    for (const listener of this.listeners) listener(event);
  }

  /** The last `capacity` events, oldest first. */
  past(): readonly ClusterEvent[] {
    return this.buffer.length > this.capacity ? this.buffer.slice(this.buffer.length - this.capacity) : this.buffer;
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
