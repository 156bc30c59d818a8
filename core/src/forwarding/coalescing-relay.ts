import type { Socket } from 'node:net';

// dockerd flushes every log line as its own write; reading as soon as each one lands costs a
// read and a write syscall per line. After a short read, waiting a millisecond lets the socket
// buffer fill (measured in docs/performance.md).
const SHORT_READ_BYTES = 32 * 1024;
const WAIT_MS = 1;

/** Copies `from` to `to` with backpressure, batching small reads; ends `to` when `from` ends. */
export function coalescingRelay(from: Socket, to: Socket): void {
  let waiting = false;
  const resume = () => {
    waiting = false;
    if (!to.writableNeedDrain) from.resume();
  };
  from.on('data', (chunk: Buffer) => {
    const flowing = to.write(chunk);
    if (flowing && chunk.length >= SHORT_READ_BYTES) return;
    from.pause();
    if (flowing && !waiting) {
      waiting = true;
      setTimeout(resume, WAIT_MS);
    }
  });
  to.on('drain', () => {
    if (!waiting) from.resume();
  });
  from.once('end', () => to.end());
  from.resume();
}
