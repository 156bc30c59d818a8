import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { WireResponse } from '@swarm/plugin-sdk/access';
import { sendError } from '../http/responses.js';

/** dockerd's AuthZ plugins get answer bodies up to this size (moby's pkg/authorization maxBodySize). */
const HELD_BODY_LIMIT = 1024 * 1024;

/** A response's headers as authorizers get them (numbers written out, as on the wire). */
export function wireHeaders(res: ServerResponse): WireResponse['headers'] {
  const headers: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) headers[name] = typeof value === 'number' ? String(value) : value;
  return headers;
}

/**
 * An answer held back until the authorizers that judge answers (Docker's `AuthZRes`) have seen
 * it, as dockerd's response modifier holds it: status, headers and body are kept until the
 * handler ends the answer, then judged (`judge` throws a denial), then sent or replaced by the
 * denial. The judging starts at `end()`, not when the handler returns, since a proxy's handler
 * waits for its answer to go out. An answer that streams (it flushes its head with no length, or
 * grows past 1 MiB) goes out as it comes, and is judged without its body after it ended, as
 * dockerd judges a flushed one.
 */
export class HeldAnswer {
  private status = 200;
  private statusMessage: string | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private released = false;
  private ended = false;
  private endCallback: (() => void) | undefined;
  private readonly original: Pick<ServerResponse, 'writeHead' | 'write' | 'end' | 'flushHeaders'>;
  /** Headers set before the handler ran (CORS): a denial keeps them. */
  private readonly before: OutgoingHttpHeaders;

  private settling: Promise<void> | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly judge: (response: WireResponse) => Promise<void>,
  ) {
    this.before = res.getHeaders();
    this.original = { writeHead: res.writeHead, write: res.write, end: res.end, flushHeaders: res.flushHeaders };
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      if (this.released) return this.original.writeHead.call(res, status, ...(rest as [OutgoingHttpHeaders]));
      this.status = status;
      const [first, second] = rest;
      if (typeof first === 'string') this.statusMessage = first;
      const headers = (typeof first === 'string' ? second : first) as OutgoingHttpHeaders | readonly string[] | undefined;
      if (headers && !Array.isArray(headers)) {
        for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) if (value !== undefined) res.setHeader(name, value);
      }
      return res;
    }) as ServerResponse['writeHead'];
    res.flushHeaders = () => {
      // A head with a length announces a whole answer: it can still be held. Any other flush is a
      // stream starting (`wait`, `logs -f`): its head goes now, as the client waits for it.
      const length = Number(res.getHeader('content-length') ?? 'NaN');
      if (!this.released && Number.isFinite(length) && length <= HELD_BODY_LIMIT) return;
      this.release();
      this.original.flushHeaders.call(res);
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (this.released) return (this.original.write as (...args: unknown[]) => boolean).call(res, chunk, ...rest);
      this.keep(chunk, rest);
      if (this.size > HELD_BODY_LIMIT) this.release();
      return true;
    }) as ServerResponse['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (this.released) return (this.original.end as (...args: unknown[]) => ServerResponse).call(res, chunk, ...rest);
      if (typeof chunk === 'function') this.endCallback = chunk as () => void;
      else if (chunk !== undefined && chunk !== null) this.keep(chunk, rest);
      const callback = rest.find((value) => typeof value === 'function');
      if (callback) this.endCallback = callback as () => void;
      this.ended = true;
      this.settling = this.settle();
      return res;
    }) as ServerResponse['end'];
  }

  private keep(chunk: unknown, rest: unknown[]): void {
    const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8';
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk as Uint8Array);
    this.chunks.push(buffer);
    this.size += buffer.length;
  }

  /** What the authorizers see: the body only when it was held whole. */
  response(): WireResponse {
    const headers = wireHeaders(this.res);
    const whole = !this.released && this.ended;
    return {
      statusCode: this.released ? this.res.statusCode : this.status,
      headers,
      ...(whole ? { body: Buffer.concat(this.chunks) } : {}),
    };
  }

  /** Judged whole at the handler's `end()`: sent, or replaced by the denial. */
  private async settle(): Promise<void> {
    try {
      await this.judge(this.response());
    } catch (error) {
      this.discard();
      sendError(this.res, error);
      return;
    }
    this.release();
  }

  /** Resolves once a held answer was judged and sent; at once for one that streamed. */
  settled(): Promise<void> {
    return this.settling ?? Promise.resolve();
  }

  /** It was judged whole (else it streamed, or the handler failed before ending it). */
  get judged(): boolean {
    return this.settling !== undefined;
  }

  /** The response with its own methods again. */
  private giveBack(): ServerResponse {
    this.released = true;
    const { res, original } = this;
    res.writeHead = original.writeHead;
    res.write = original.write;
    res.end = original.end;
    res.flushHeaders = original.flushHeaders;
    return res;
  }

  /** Sends what was held and lets the rest through. */
  release(): void {
    if (this.released) return;
    const res = this.giveBack();
    if (!res.headersSent) {
      if (this.statusMessage !== undefined) res.writeHead(this.status, this.statusMessage);
      else res.writeHead(this.status);
    }
    for (const chunk of this.chunks.splice(0)) res.write(chunk);
    if (this.ended) res.end(this.endCallback);
  }

  /** Drops what was held (the answer is replaced by a denial) and gives the response back. */
  discard(): void {
    if (this.released) return;
    const res = this.giveBack();
    this.chunks.length = 0;
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    for (const [name, value] of Object.entries(this.before)) if (value !== undefined) res.setHeader(name, value);
    res.statusCode = 200;
  }
}
