/** One HTTP/1.x answer read off a connection. */
export interface ReadResponse {
  readonly status: number;
  readonly body: Buffer;
  /** The server closes the connection after this answer (`Connection: close`, HTTP/1.0, a body read to the end). */
  readonly closes: boolean;
}

type Phase =
  | { kind: 'head' }
  | { kind: 'length'; status: number; closes: boolean; length: number }
  | { kind: 'chunk-size'; status: number; closes: boolean; parts: Buffer[] }
  | { kind: 'chunk-data'; status: number; closes: boolean; parts: Buffer[]; size: number }
  | { kind: 'trailers'; status: number; closes: boolean; parts: Buffer[] }
  | { kind: 'until-close'; status: number; parts: Buffer[] };

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** A head longer than this is not an engine's answer (Go's server writes a few hundred bytes). */
const MAX_HEAD_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

/** The bytes on a connection are not an HTTP/1.x answer. */
export class MalformedResponse extends Error {}

/**
 * Splits the bytes of one connection into HTTP/1.x answers, in order: the answers to pipelined
 * requests. Bodies come by `Content-Length`, chunked transfer coding or up to the connection's end;
 * 1xx heads are skipped, and 204/304 answers have no body. Enough of HTTP for a Docker engine's
 * (Go's net/http) answers to GETs, which is all it is used for.
 */
export class ResponseReader {
  private buffer: Buffer = EMPTY;
  private phase: Phase = { kind: 'head' };

  /** Takes the next bytes; returns the answers they complete. Throws `MalformedResponse`. */
  push(chunk: Buffer): ReadResponse[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const done: ReadResponse[] = [];
    for (let answer = this.step(); answer !== 'more'; answer = this.step()) if (answer) done.push(answer);
    return done;
  }

  /** The connection ended: an answer whose body runs to the end is complete; any other unfinished one is cut. */
  end(): ReadResponse | undefined {
    if (this.phase.kind !== 'until-close') return undefined;
    const body = Buffer.concat([...this.phase.parts, this.buffer]);
    const answer = { status: this.phase.status, body, closes: true };
    this.buffer = EMPTY;
    this.phase = { kind: 'head' };
    return answer;
  }

  /** Whether bytes of an unfinished answer are held (a cut answer, when the connection ends now). */
  get midAnswer(): boolean {
    return this.buffer.length > 0 || this.phase.kind !== 'head';
  }

  /** One parsing step: an answer, `undefined` (progress without one) or `'more'` (needs more bytes). */
  private step(): ReadResponse | undefined | 'more' {
    const phase = this.phase;
    switch (phase.kind) {
      case 'head':
        return this.readHead();
      case 'length': {
        if (this.buffer.length < phase.length) return 'more';
        const body = this.take(phase.length);
        return this.finish({ status: phase.status, body, closes: phase.closes });
      }
      case 'chunk-size': {
        const line = this.takeLine();
        if (line === undefined) return 'more';
        const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) throw new MalformedResponse(`bad chunk size "${line}"`);
        this.phase = size === 0 ? { ...phase, kind: 'trailers' } : { ...phase, kind: 'chunk-data', size };
        return undefined;
      }
      case 'chunk-data': {
        if (this.buffer.length < phase.size + CRLF.length) return 'more';
        phase.parts.push(this.take(phase.size));
        this.take(CRLF.length);
        this.phase = { kind: 'chunk-size', status: phase.status, closes: phase.closes, parts: phase.parts };
        return undefined;
      }
      case 'trailers': {
        const line = this.takeLine();
        if (line === undefined) return 'more';
        if (line !== '') return undefined;
        return this.finish({ status: phase.status, body: Buffer.concat(phase.parts), closes: phase.closes });
      }
      case 'until-close':
        phase.parts.push(this.take(this.buffer.length));
        return 'more';
    }
  }

  private readHead(): ReadResponse | undefined | 'more' {
    const end = this.buffer.indexOf(HEAD_END);
    if (end < 0) {
      if (this.buffer.length > MAX_HEAD_BYTES) throw new MalformedResponse('answer head too long');
      return 'more';
    }
    const lines = this.buffer.toString('latin1', 0, end).split('\r\n');
    this.take(end + HEAD_END.length);
    const statusLine = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!statusLine) throw new MalformedResponse(`not an HTTP/1.x answer: "${(lines[0] ?? '').slice(0, 80)}"`);
    const status = Number(statusLine[2]);
    let length: number | undefined;
    let chunked = false;
    let connection = statusLine[1] === '0' ? 'close' : 'keep-alive';
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.split(',').some((coding) => coding.trim() === 'chunked');
      else if (name === 'connection') connection = value;
    }
    const closes = connection.split(',').some((option) => option.trim() === 'close');
    if (status >= 100 && status < 200) return undefined; // an interim answer; the real one follows
    if (status === 204 || status === 304) return this.finish({ status, body: EMPTY, closes });
    if (chunked) this.phase = { kind: 'chunk-size', status, closes, parts: [] };
    else if (length !== undefined) {
      if (!Number.isSafeInteger(length) || length < 0) throw new MalformedResponse('bad Content-Length');
      this.phase = { kind: 'length', status, closes, length };
    } else this.phase = { kind: 'until-close', status, parts: [] };
    return undefined;
  }

  private finish(answer: ReadResponse): ReadResponse {
    this.phase = { kind: 'head' };
    return answer;
  }

  private take(count: number): Buffer {
    const taken = this.buffer.subarray(0, count);
    this.buffer = count >= this.buffer.length ? EMPTY : this.buffer.subarray(count);
    return taken;
  }

  private takeLine(): string | undefined {
    const end = this.buffer.indexOf(CRLF);
    if (end < 0) return undefined;
    const line = this.buffer.toString('latin1', 0, end);
    this.take(end + CRLF.length);
    return line;
  }
}
