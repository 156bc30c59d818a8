import { SdkErrors } from '../../errors.js';

/**
 * A limit on engine calls in flight, shared by the clients of many engines. Each call holds an open
 * connection, so a deployment bounds its sockets (and the open files they use) by sharing one
 * CallSlots between its engines' clients. Calls beyond the limit wait in arrival order; the wait
 * is the host's own queue, not the engine's slowness, so it does not count against a call's timeout.
 */
export class CallSlots {
  private capacity: number;
  private used = 0;
  private readonly waiting: Array<{ admit: () => void }> = [];

  constructor(capacity: number) {
    this.capacity = Math.max(1, Math.floor(capacity));
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.used;
  }

  /** Calls waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** A new limit (at least 1); raising it admits waiting calls at once. */
  resize(capacity: number): void {
    this.capacity = Math.max(1, Math.floor(capacity));
    this.admitWaiting();
  }

  /** Resolves once the caller holds a slot; rejects (coded) if `signal` aborts first. Pair with `release`. */
  acquire(signal?: AbortSignal, engine = 'engine'): Promise<void> {
    if (signal?.aborted) return Promise.reject(SdkErrors.engineCallCancelled({ engine }, { cause: signal.reason }));
    if (this.used < this.capacity && this.waiting.length === 0) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        admit: () => {
          signal?.removeEventListener('abort', cancel);
          this.used++;
          resolve();
        },
      };
      const cancel = (): void => {
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(SdkErrors.engineCallCancelled({ engine }, { cause: signal?.reason }));
      };
      signal?.addEventListener('abort', cancel, { once: true });
      this.waiting.push(entry);
    });
  }

  release(): void {
    this.used = Math.max(0, this.used - 1);
    this.admitWaiting();
  }

  private admitWaiting(): void {
    while (this.used < this.capacity) {
      const next = this.waiting.shift();
      if (next === undefined) return;
      next.admit();
    }
  }
}
