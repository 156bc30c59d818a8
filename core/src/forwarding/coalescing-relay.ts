import type { Socket } from 'node:net';
import type { StreamBoundaries } from './stream-boundaries.js';

// dockerd flushes every log line as its own write; reading as soon as each one lands costs a
// read and a write syscall per line. After a short read, waiting a millisecond lets the socket
// buffer fill (measured in docs/performance.md). A read is judged short over everything that
// arrived in one turn of the event loop, not per 'data' event: a TLS socket emits one event per
// record, and dockerd writes one record per log line, so a wait per event would cost a millisecond
// a line.
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
  let burst = 0;
  let judging = false;
  const judgeBurst = () => {
    judging = false;
    const short = burst < SHORT_READ_BYTES;
    burst = 0;
    if (!short || waiting || ended || from.isPaused()) return;
    from.pause();
    waiting = true;
    setTimeout(resume, WAIT_MS);
  };
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
    if (!to.write(chunk)) {
      // the drain resumes it
      from.pause();
      return;
    }
    burst += chunk.length;
    if (!judging) {
      judging = true;
      setImmediate(judgeBurst);
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
