import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, createGzip, type Gzip } from 'node:zlib';
import type { WebResponse, WebStream, WebStreamOptions } from '@swarm/plugin-sdk/web';
import { sendJson } from '../http/responses.js';
import { CoreErrors } from '../errors.js';

function acceptsGzip(req: IncomingMessage): boolean {
  const accepted = req.headers['accept-encoding'];
  return typeof accepted === 'string' && /\bgzip\b/.test(accepted);
}

/** Resolves once `target` has taken what was written, or the response closed. */
function drained(
  res: ServerResponse,
  target: { writableNeedDrain: boolean; once(event: 'drain', fn: () => void): unknown; off(event: 'drain', fn: () => void): unknown },
): Promise<void> {
  if (!target.writableNeedDrain || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      target.off('drain', done);
      res.off('close', done);
      resolve();
    };
    target.once('drain', done);
    res.once('close', done);
  });
}

/**
 * A WebResponse over one Node.js response. `answered` tells the host whether the route answered,
 * `streaming` whether it left a stream open (the request then lasts until the stream ends).
 */
export class NodeWebResponse implements WebResponse {
  answered = false;
  streaming = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {}

  private begin(): void {
    if (this.answered) throw CoreErrors.webAnsweredTwice();
    this.answered = true;
  }

  send(status: number, body: string | Uint8Array, headers: Readonly<Record<string, string>> = {}): void {
    this.begin();
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    this.res.writeHead(status, { ...headers, 'Content-Length': String(payload.byteLength) });
    this.res.end(this.req.method === 'HEAD' ? undefined : payload);
  }

  json(status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): void {
    this.begin();
    for (const [name, text] of Object.entries(headers)) this.res.setHeader(name, text);
    sendJson(this.res, status, value);
  }

  stream(status: number, headers: Readonly<Record<string, string>>, options: WebStreamOptions = {}): WebStream {
    this.begin();
    this.streaming = true;
    const res = this.res;
    // Large chunks: a 5 MB first message in zlib's default 16 kB pieces costs hundreds of thread-pool round trips.
    const gzip =
      options.compress && acceptsGzip(this.req) ? createGzip({ flush: constants.Z_SYNC_FLUSH, chunkSize: 256 * 1024 }) : undefined;
    res.writeHead(status, gzip ? { ...headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : headers);
    res.flushHeaders();
    if (gzip) {
      gzip.pipe(res);
      res.once('close', () => gzip.destroy());
    }
    return gzip ? gzipStream(res, gzip) : plainStream(res);
  }
}

function plainStream(res: ServerResponse): WebStream {
  return {
    write: (chunk) => (res.destroyed ? false : res.write(chunk)),
    drained: () => drained(res, res),
    end: () => res.end(),
  };
}

function gzipStream(res: ServerResponse, gzip: Gzip): WebStream {
  return {
    write: (chunk) => (gzip.destroyed ? false : gzip.write(chunk) && !res.writableNeedDrain),
    drained: async () => {
      await drained(res, gzip);
      await drained(res, res);
    },
    end: () => gzip.end(),
  };
}
