import type { Writable } from 'node:stream';

/** Where the audit log's lines go: a rotating file, or standard output. */
export interface LineSink {
  /** Writes whole lines; rejects when they could not all be written. */
  write(lines: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A stream (standard output for `--audit-log -`): each batch is written once the stream has
 * drained, so a slow reader slows the log's queue, never a request.
 */
export class StreamSink implements LineSink {
  constructor(private readonly stream: Writable) {}

  write(lines: readonly string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.stream.destroyed || this.stream.writableEnded) {
        reject(new Error('the stream is closed'));
        return;
      }
      // the callback reports the write's error, if any, once it is flushed or failed
      this.stream.write(lines.join(''), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Standard output is not ours to end. */
  async close(): Promise<void> {}
}
