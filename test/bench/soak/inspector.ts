import WebSocket from 'ws';

interface Reply {
  id: number;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** The monitor the soak installs in the manager (`require` is the inspector console's, not the app's). */
const INSTALL = `(() => { const make = () => { const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable(); return h; };
  globalThis.__soakDelay ??= make(); globalThis.__soakDelayTotal ??= make(); return true; })()`;
/** Percentiles since the last read, in ms, then a fresh start. */
const read = (histogram: string, reset: boolean): string => `(() => { const h = globalThis.${histogram}; const ms = (ns) => ns / 1e6;
  const out = { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), count: h.count }; ${reset ? 'h.reset();' : ''} return JSON.stringify(out); })()`;

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/**
 * The V8 inspector of a manager started with `--inspect=127.0.0.1:PORT`: heap after a full
 * collection and the event loop's delay, measured inside the manager without any code of the
 * manager's for it (perf_hooks' histogram, installed through the inspector's console).
 */
export class Inspector {
  private nextId = 0;
  private readonly pending = new Map<number, (reply: Reply) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const reply = JSON.parse(data.toString()) as Reply;
      this.pending.get(reply.id)?.(reply);
      this.pending.delete(reply.id);
    });
  }

  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
    const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const inspector = new Inspector(socket);
    await inspector.evaluate(INSTALL);
    return inspector;
  }

  private send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer from the inspector in 30 s`));
      }, 30_000);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.error) reject(new Error(`${method}: ${reply.error.message}`));
        else resolve(reply.result ?? {});
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  private async evaluate(expression: string): Promise<unknown> {
    const result = await this.send('Runtime.evaluate', { expression, includeCommandLineAPI: true, returnByValue: true });
    return (result['result'] as { value?: unknown } | undefined)?.value;
  }

  /** Since the last call. */
  async loopDelay(): Promise<LoopDelay> {
    return JSON.parse(String(await this.evaluate(read('__soakDelay', true)))) as LoopDelay;
  }

  /** Since `resetTotal`: the whole run's percentiles, which per-interval ones cannot be merged into. */
  async loopDelayTotal(): Promise<LoopDelay> {
    return JSON.parse(String(await this.evaluate(read('__soakDelayTotal', false)))) as LoopDelay;
  }

  async resetTotal(): Promise<void> {
    await this.evaluate('globalThis.__soakDelayTotal.reset(); globalThis.__soakDelay.reset(); true');
  }

  /** Used heap in bytes right after a full, forced collection: what the heap retains. */
  async heapAfterGc(): Promise<number> {
    await this.send('HeapProfiler.collectGarbage');
    const usage = await this.send('Runtime.getHeapUsage');
    return Number(usage['usedSize']);
  }

  /** Starts V8's sampling profiler in the manager (`--cpu-profile`: where its event loop's time goes). */
  async startProfile(): Promise<void> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: 1000 });
    await this.send('Profiler.start');
  }

  /** The profile since `startProfile`, as Chrome DevTools and `--cpu-prof` write it. */
  async stopProfile(): Promise<unknown> {
    const result = await this.send('Profiler.stop');
    return result['profile'];
  }

  close(): void {
    this.socket.close();
  }
}
