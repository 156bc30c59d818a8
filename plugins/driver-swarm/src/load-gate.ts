import { CallSlots } from '@swarm/plugin-sdk/helpers';

/**
 * Caps how many engines load their whole state at once. A thousand engines starting together
 * would otherwise open thousands of connections and hold every answer in memory at the same
 * time, which makes the manager's heap (and RSS) grow far beyond what it keeps. Loads wait in
 * arrival order for a slot of a CallSlots.
 */
export class LoadGate {
  private readonly slots: CallSlots;

  constructor(limit: number) {
    this.slots = new CallSlots(limit);
  }

  /** A new limit (at least 1); raising it lets waiting loads start at once. */
  resize(limit: number): void {
    this.slots.resize(limit);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.slots.acquire();
    try {
      return await task();
    } finally {
      this.slots.release();
    }
  }
}
