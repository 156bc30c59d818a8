const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Hands out API calls at a steady rate shared by every loop, so the manager sees a constant load
 * rather than bursts; a loop that fell behind (a slow answer) does not make up for it in a burst.
 */
export class Pacer {
  private next = Date.now();
  private readonly intervalMs: number;

  constructor(callsPerSecond: number) {
    this.intervalMs = 1000 / callsPerSecond;
  }

  async take(): Promise<void> {
    const now = Date.now();
    if (this.next < now - 1000) this.next = now;
    const at = this.next;
    this.next += this.intervalMs;
    if (at > now) await sleep(at - now);
  }
}
