import type { IncomingMessage, ServerResponse } from 'node:http';
import { engineHostHeader, type EngineClient } from '@swarm/plugin-sdk/helpers';
import { sendError } from '../http/responses.js';
import { coalescingRelay } from './coalescing-relay.js';
import { AnyBoundary, ChunkedBoundaries } from './stream-boundaries.js';
import { clientResponseHead, parseResponseHead, rawRequestHead, type RawResponseHead } from './raw-http.js';
import { CoreErrors } from '../errors.js';

const MAX_HEAD_BYTES = 64 * 1024;

/** Only bodiless requests: the client's connection is taken over and not read any further. */
export function hasNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

function headerValue(head: RawResponseHead, name: string): string | undefined {
  return head.headers.find(([key]) => key.toLowerCase() === name)?.[1];
}

/**
 * For big or long answers (logs, export, archives, stats, image save): the engine frames the body
 * itself (one HTTP chunk per log line from dockerd), so parsing it and chunking it again would cost
 * a call per chunk. Instead the engine's answer is read on a raw connection and, once its head is
 * rewritten, its bytes (framing included) are copied to the client's socket as they come. Both
 * connections close when the answer ends (`Connection: close`), which is what lets the body go
 * through unparsed.
 */
export function pipeFramedFromEngine(
  engine: EngineClient,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  draining?: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const client = res.socket;
    if (!client || client.destroyed) return resolve();
    const upstream = engine.dial();
    let pending: Buffer = Buffer.alloc(0);
    let takenOver = false;
    let settled = false;
    const finish = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    const fail = (error: Error) => {
      upstream.destroy();
      if (takenOver) client.destroy();
      else sendError(res, error);
      finish();
    };
    client.once('close', () => {
      upstream.destroy();
      finish();
    });
    upstream.on('error', fail);

    const takeOver = (head: RawResponseHead, rest: Buffer) => {
      takenOver = true;
      res.statusCode = head.status;
      const encoding = headerValue(head, 'transfer-encoding');
      const framing = [...(encoding ? [`Transfer-Encoding: ${encoding}`] : []), 'Connection: close'];
      client.write(clientResponseHead(head, res.getHeaders(), framing));
      if (rest.length > 0) client.write(rest);
      // dockerd writes each log line or stats reading as one chunk, so chunks are whole records
      const boundaries = encoding?.toLowerCase() === 'chunked' ? new ChunkedBoundaries() : new AnyBoundary();
      coalescingRelay(upstream, client, draining && { signal: draining, boundaries });
      upstream.once('end', () => {
        upstream.end();
        finish();
      });
    };

    const onData = (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) {
        if (pending.length > MAX_HEAD_BYTES) fail(CoreErrors.engineAnswerUnreadable({ reason: 'sent an oversized answer head' }));
        return;
      }
      upstream.off('data', onData);
      upstream.off('end', onEarlyEnd);
      upstream.pause();
      const head = parseResponseHead(pending.subarray(0, end).toString('latin1'));
      if (!head) return fail(CoreErrors.engineAnswerUnreadable({ reason: 'sent a malformed answer' }));
      takeOver(head, pending.subarray(end + 4));
    };
    const onEarlyEnd = () => fail(CoreErrors.engineAnswerUnreadable({ reason: 'closed the connection without answering' }));
    upstream.on('data', onData);
    upstream.once('end', onEarlyEnd);
    upstream.write(rawRequestHead(req, path, engineHostHeader(engine.endpoint), { keepHops: false, extra: ['Connection: close'] }));
  });
}
