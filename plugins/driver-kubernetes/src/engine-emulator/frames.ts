import { Writable } from 'node:stream';

/** Docker's multiplexed stream: 8-byte header (stream, 0, 0, 0, big-endian size) before each chunk. */
export function frame(stream: 1 | 2, chunk: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(chunk.length, 4);
  return Buffer.concat([header, chunk]);
}

/** A writable that forwards to `out`, framed for `stream` unless the container has a TTY (raw bytes then). */
export function framedWriter(out: { write(chunk: Buffer): unknown; destroyed?: boolean }, stream: 1 | 2, tty: boolean): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!out.destroyed && chunk.length > 0) out.write(tty ? chunk : frame(stream, chunk));
      done();
    },
  });
}
