/**
 * Where a relayed stream can end without breaking what the client parses. A stopping manager
 * ends the streams that would never end on their own (`logs -f`, `stats`, `attach`) at such a
 * point, so the client reads a complete stream, not a truncated frame: the docker CLI exits 0 on
 * a clean end and fails with "unexpected EOF" on a cut one.
 *
 * A scanner follows the bytes as they are relayed, cheaply (payloads are skipped by length, only
 * headers are read), and says how many bytes of the next chunk still belong before the boundary.
 */
export interface StreamBoundaries {
  /** Moves over `chunk`; with `stopAtBoundary`, stops at the first boundary and returns how many bytes lie before it. */
  advance(chunk: Buffer, stopAtBoundary: boolean): number;
  /** Whether the bytes seen so far end at a boundary. */
  readonly atBoundary: boolean;
  /** What closes the stream cleanly from a boundary (chunked: the last, empty chunk). */
  readonly terminator: Buffer;
}

/** A stream that may end anywhere: a TTY's raw bytes, a body that ends with the connection. */
export class AnyBoundary implements StreamBoundaries {
  readonly atBoundary = true;
  readonly terminator = Buffer.alloc(0);
  advance(chunk: Buffer, stopAtBoundary: boolean): number {
    return stopAtBoundary ? 0 : chunk.length;
  }
}

const CR = 0x0d;
const LF = 0x0a;

/** An HTTP/1.1 chunked body (RFC 9112 §7.1): a boundary lies before each chunk's size line. */
export class ChunkedBoundaries implements StreamBoundaries {
  readonly terminator = Buffer.from('0\r\n\r\n');
  private state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size';
  private sizeLine = '';
  private remaining = 0;
  private trailerLine = 0;

  get atBoundary(): boolean {
    return (this.state === 'size' && this.sizeLine === '') || this.state === 'done';
  }

  advance(chunk: Buffer, stopAtBoundary: boolean): number {
    let offset = 0;
    while (offset < chunk.length) {
      if (stopAtBoundary && this.atBoundary) return offset;
      switch (this.state) {
        case 'size': {
          const byte = chunk[offset++]!;
          if (byte !== LF) {
            if (byte !== CR) this.sizeLine += String.fromCharCode(byte);
            break;
          }
          const size = Number.parseInt(this.sizeLine.split(';')[0]!.trim() || '0', 16);
          this.sizeLine = '';
          if (size === 0) {
            this.state = 'trailer';
            this.trailerLine = 0;
          } else {
            this.state = 'data';
            this.remaining = size;
          }
          break;
        }
        case 'data': {
          const taken = Math.min(this.remaining, chunk.length - offset);
          offset += taken;
          this.remaining -= taken;
          if (this.remaining === 0) {
            this.state = 'data-end';
            this.remaining = 2;
          }
          break;
        }
        case 'data-end': {
          offset += 1;
          this.remaining -= 1;
          if (this.remaining === 0) this.state = 'size';
          break;
        }
        case 'trailer': {
          const byte = chunk[offset++]!;
          if (byte === LF) {
            if (this.trailerLine === 0) this.state = 'done';
            this.trailerLine = 0;
          } else if (byte !== CR) this.trailerLine += 1;
          break;
        }
        case 'done':
          return stopAtBoundary ? offset : chunk.length;
      }
    }
    return offset;
  }
}

/** Docker's multiplexed attach stream: 8-byte headers (stream, 0, 0, 0, big-endian size) each before its payload. */
export class DockerFrameBoundaries implements StreamBoundaries {
  readonly terminator = Buffer.alloc(0);
  private header = Buffer.alloc(8);
  private headerRead = 0;
  private remaining = 0;

  get atBoundary(): boolean {
    return this.headerRead === 0 && this.remaining === 0;
  }

  advance(chunk: Buffer, stopAtBoundary: boolean): number {
    let offset = 0;
    while (offset < chunk.length) {
      if (stopAtBoundary && this.atBoundary) return offset;
      if (this.remaining > 0) {
        const taken = Math.min(this.remaining, chunk.length - offset);
        offset += taken;
        this.remaining -= taken;
        continue;
      }
      const taken = Math.min(8 - this.headerRead, chunk.length - offset);
      chunk.copy(this.header, this.headerRead, offset, offset + taken);
      this.headerRead += taken;
      offset += taken;
      if (this.headerRead === 8) {
        this.headerRead = 0;
        this.remaining = this.header.readUInt32BE(4);
      }
    }
    return offset;
  }
}

/**
 * The boundaries after an HTTP answer's head: the head itself (up to its blank line) is never a
 * place to stop, then the body's own boundaries take over. For the tunnel, whose engine answer
 * (`101 UPGRADED`, then the stream) passes through unparsed.
 */
export class AfterHead implements StreamBoundaries {
  private headDone = false;
  private tail = 0;

  constructor(private readonly body: StreamBoundaries) {}

  get atBoundary(): boolean {
    return this.headDone && this.body.atBoundary;
  }

  get terminator(): Buffer {
    return this.body.terminator;
  }

  advance(chunk: Buffer, stopAtBoundary: boolean): number {
    let offset = 0;
    // the head ends with CRLF CRLF: count the run of line-end bytes seen
    while (!this.headDone && offset < chunk.length) {
      const byte = chunk[offset++]!;
      this.tail = byte === (this.tail % 2 === 0 ? CR : LF) ? this.tail + 1 : byte === CR ? 1 : 0;
      if (this.tail === 4) this.headDone = true;
    }
    if (offset === chunk.length) return offset;
    return offset + this.body.advance(chunk.subarray(offset), stopAtBoundary);
  }
}
