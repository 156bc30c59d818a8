import type { ServerResponse } from 'node:http';
import { isSwarmError } from '@swarm/plugin-sdk';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

/**
 * Characters per write when a list is streamed: well under V8's large-object size (128 KB), since
 * larger strings live in the large-object space, which only a full GC frees (30,000 `ps` rows
 * written 500 at a time left ~30 MB there per call).
 */
const CHARS_PER_WRITE = 48 * 1024;

/**
 * A JSON array written in slices (chunked), so a list of 30,000 containers never exists as one
 * string: `present` runs row by row, and a slow client holds back the writes (backpressure).
 */
export async function sendJsonArray<T>(res: ServerResponse, items: readonly T[], present: (item: T) => unknown): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  let chunk = '[';
  for (let index = 0; index < items.length; index++) {
    chunk += (index === 0 ? '' : ',') + JSON.stringify(present(items[index]!));
    if (chunk.length < CHARS_PER_WRITE) continue;
    if (!res.write(chunk)) await drained(res);
    if (res.destroyed) return;
    chunk = '';
  }
  res.end(`${chunk}]`);
}

/** Resolves once the client took what was written (or left). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export function sendNoContent(res: ServerResponse, status = 204): void {
  res.writeHead(status);
  res.end();
}

/** Status and message a client sees for any error thrown by a handler or the cluster. */
export function describeError(error: unknown): { status: number; message: string } {
  if (isSwarmError(error)) return { status: error.httpStatus, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, message };
}

/** Docker's error format. When the response already started, the stream is cut instead. */
export function sendError(res: ServerResponse, error: unknown): void {
  const { status, message } = describeError(error);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { message });
}
