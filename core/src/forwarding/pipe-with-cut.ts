import type { Readable, Writable } from 'node:stream';
import type { RelayCut } from './coalescing-relay.js';

/**
 * `from.pipe(to)`, and once `cut.signal` fires, `to` ends at the stream's next boundary (see
 * stream-boundaries.ts) and `onCut` lets the source go. Without a cut it is a plain pipe.
 */
export function pipeWithCut(from: Readable, to: Writable, cut: RelayCut | undefined, onCut: () => void): void {
  from.pipe(to);
  if (!cut) return;
  let ended = false;
  const endHere = () => {
    if (ended) return;
    ended = true;
    from.off('data', follow);
    to.end(cut.boundaries.terminator);
    onCut();
  };
  // Runs after pipe's own listener for the same chunk: it keeps count of what was written.
  const follow = (chunk: Buffer) => {
    if (ended) return;
    if (!cut.signal.aborted) {
      cut.boundaries.advance(chunk, false);
      return;
    }
    const before = cut.boundaries.advance(chunk, true);
    if (before > 0) to.write(chunk.subarray(0, before));
    if (cut.boundaries.atBoundary) endHere();
  };
  from.on('data', follow);
  const onAbort = () => {
    if (cut.boundaries.atBoundary) return endHere();
    // from here the rest is written by `follow`, up to the boundary
    from.unpipe(to);
    from.resume();
  };
  if (cut.signal.aborted) onAbort();
  else {
    // the signal lives as long as the server: a listener left on it would keep every finished stream
    cut.signal.addEventListener('abort', onAbort, { once: true });
    from.once('close', () => cut.signal.removeEventListener('abort', onAbort));
  }
}
