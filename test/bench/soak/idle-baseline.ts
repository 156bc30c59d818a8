import { spawn, type ChildProcess } from 'node:child_process';
import type { LoopDelay } from './inspector.js';

// An idle Node process's own event-loop histogram, printed when it is told to stop.
const SCRIPT = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable();
setInterval(() => undefined, 1 << 30);
process.on('SIGTERM', () => { const ms = (ns) => ns / 1e6;
  process.stdout.write(JSON.stringify({ p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), count: h.count }));
  process.exit(0); });`;

/**
 * The machine's own share of the manager's event-loop delay: an idle Node process running beside
 * it for the whole load sees only the delay of waiting for a CPU, which on a shared, loaded
 * machine is far from zero. The soak judges the manager's delay beyond this baseline.
 */
export class IdleBaseline {
  private readonly child: ChildProcess;
  private output = '';

  constructor() {
    this.child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  stop(): Promise<LoopDelay | undefined> {
    return new Promise((resolve) => {
      this.child.once('exit', () => {
        try {
          resolve(JSON.parse(this.output) as LoopDelay);
        } catch {
          resolve(undefined);
        }
      });
      this.child.kill('SIGTERM');
    });
  }
}
