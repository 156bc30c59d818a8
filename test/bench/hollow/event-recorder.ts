import { request, type ClientRequest } from 'node:http';

/** Follows an engine's `GET /events` stream and keeps every event it sends, parsed. */
export class EventRecorder {
  readonly events: Record<string, unknown>[] = [];
  private req: ClientRequest | undefined;
  private waiters: { test: (event: Record<string, unknown>) => boolean; resolve: () => void }[] = [];

  static async follow(host: string, port: number, query = ''): Promise<EventRecorder> {
    const recorder = new EventRecorder();
    await new Promise<void>((resolve, reject) => {
      recorder.req = request({ host, port, path: `/v1.41/events${query}` }, (res) => {
        let pending = '';
        res.on('data', (chunk: Buffer) => {
          pending += chunk.toString();
          let newline = pending.indexOf('\n');
          while (newline >= 0) {
            const line = pending.slice(0, newline).trim();
            pending = pending.slice(newline + 1);
            if (line !== '') recorder.add(JSON.parse(line) as Record<string, unknown>);
            newline = pending.indexOf('\n');
          }
        });
        resolve();
      });
      recorder.req.on('error', reject);
      recorder.req.end();
    });
    return recorder;
  }

  /** Resolves once an event satisfying `test` has arrived (or already had). */
  waitFor(test: (event: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<void> {
    if (this.events.some(test)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`event not seen within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  close(): void {
    this.req?.destroy();
  }

  private add(event: Record<string, unknown>): void {
    this.events.push(event);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.test(event)) return true;
      waiter.resolve();
      return false;
    });
  }
}
