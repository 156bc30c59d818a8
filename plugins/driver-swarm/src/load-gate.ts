/**
 * Caps how many engines load their whole state at once. A thousand engines starting together
 * would otherwise open thousands of connections and hold every answer in memory at the same
 * time, which makes the manager's heap (and RSS) grow far beyond what it keeps.
 */
export class LoadGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
