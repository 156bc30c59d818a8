import type { Writable } from 'node:stream';

/** What became of a batch of lines. A sink never rejects: the log must go on whatever happens. */
export interface WriteOutcome {
  /** How many of the lines, from the first, are written. */
  readonly written: number;
  /** Why the others are not. */
  readonly error?: unknown;
  /** The file could not be rotated (it was written to as it was, past its limit). */
  readonly rotationError?: unknown;
}

/** Where the audit log's lines go: a rotating file, or standard output. */
export interface LineSink {
  write(lines: readonly string[]): Promise<WriteOutcome>;
  close(): Promise<void>;
}

const ignoreError = (): void => undefined;

/**
 * A stream (standard output for `--audit-log -`): each batch is written once the stream has
 * drained, so a slow reader slows the log's queue, never a request.
 */
export class StreamSink implements LineSink {
  constructor(private readonly stream: Writable) {
    // A reader that went away (EPIPE) fails the write, whose callback reports it; unheard, the
    // stream's own 'error' event would be an uncaught exception. It stays after close, as the
    // event may come after the callback; one listener serves every sink on the stream.
    if (!stream.listeners('error').includes(ignoreError)) stream.on('error', ignoreError);
  }

  write(lines: readonly string[]): Promise<WriteOutcome> {
    return new Promise((resolve) => {
      if (this.stream.destroyed || this.stream.writableEnded) {
        resolve({ written: 0, error: 'the stream is closed' });
        return;
      }
      // the callback comes once the data is handed on (or failed): the next batch waits for it
      this.stream.write(lines.join(''), (error) => resolve(error ? { written: 0, error } : { written: lines.length }));
    });
  }

  /** Standard output is not ours to end. */
  async close(): Promise<void> {}
}
