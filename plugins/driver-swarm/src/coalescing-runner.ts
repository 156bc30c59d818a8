/**
 * Runs at most one task per key at a time; calls that arrive while a task runs collapse into a
 * single rerun afterwards. Bursts of events for one container then cost two engine calls, not N.
 */
export class CoalescingRunner {
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();

  run(key: string, task: () => Promise<void>): Promise<void> {
    return this.start(key, task, true);
  }

  /**
   * Like `run`, but a call that arrives while the task runs only waits for it: for callers that
   * know the running task started late enough to see what they care about.
   */
  join(key: string, task: () => Promise<void>): Promise<void> {
    return this.start(key, task, false);
  }

  private start(key: string, task: () => Promise<void>, rerun: boolean): Promise<void> {
    const current = this.running.get(key);
    if (current) {
      if (rerun) current.again = true;
      return current.done;
    }
    const entry = { again: false, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        do {
          entry.again = false;
          await task();
        } while (entry.again);
      } finally {
        this.running.delete(key);
      }
    })();
    this.running.set(key, entry);
    return entry.done;
  }
}
