/**
 * Caps how many engines load their whole state at once. A thousand engines starting together
 * would otherwise open thousands of connections and hold every answer in memory at the same
 * time, which makes the manager's heap (and RSS) grow far beyond what it keeps. A finished load
 * hands its slot straight to the next waiting one.
 */
export class LoadGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private limit: number) {}

  /** A new limit (at least 1); raising it lets waiting loads start at once. */
  resize(limit: number): void {
    this.limit = Math.max(1, Math.floor(limit));
    while (this.active < this.limit && this.waiting.length > 0) {
      this.active++;
      this.waiting.shift()?.();
    }
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.active <= this.limit ? this.waiting.shift() : undefined;
    if (next) next();
    else this.active--;
  }
}
