import type { Socket } from 'node:net';
import type { StreamBoundaries } from './stream-boundaries.js';

// dockerd flushes every log line as its own write; reading as soon as each one lands costs a
// read and a write syscall per line. After a short read, waiting a millisecond lets the socket
// buffer fill (measured in docs/performance.md).
const SHORT_READ_BYTES = 32 * 1024;
const WAIT_MS = 1;

/** Ends an endless stream cleanly once `signal` fires: at the next boundary, with the stream's terminator. */
export interface RelayCut {
  readonly boundaries: StreamBoundaries;
  readonly signal: AbortSignal;
}

/** Copies `from` to `to` with backpressure, batching small reads; ends `to` when `from` ends (or at a clean boundary after `cut` fires). */
export function coalescingRelay(from: Socket, to: Socket, cut?: RelayCut): void {
  let waiting = false;
  let ended = false;
  const resume = () => {
    waiting = false;
    if (!to.writableNeedDrain) from.resume();
  };
  const endHere = () => {
    if (ended) return;
    ended = true;
    to.end(cut!.boundaries.terminator);
    from.destroy();
  };
  from.on('data', (chunk: Buffer) => {
    if (ended) return;
    if (cut?.signal.aborted) {
      const before = cut.boundaries.advance(chunk, true);
      if (before > 0) to.write(chunk.subarray(0, before));
      if (cut.boundaries.atBoundary) return endHere();
      return;
    }
    cut?.boundaries.advance(chunk, false);
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
  from.once('end', () => {
    if (!ended) to.end();
  });
  if (cut) {
    const onAbort = () => {
      if (cut.boundaries.atBoundary) endHere();
      else from.resume();
    };
    if (cut.signal.aborted) onAbort();
    else {
      // the signal lives as long as the server: a listener left on it would keep every finished stream
      cut.signal.addEventListener('abort', onAbort, { once: true });
      from.once('close', () => cut.signal.removeEventListener('abort', onAbort));
    }
  }
  from.resume();
}
