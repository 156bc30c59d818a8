import type { ServerResponse } from 'node:http';
import { isSwarmError, type SwarmError } from '@swarm/plugin-sdk';
import { CoreErrors } from '../errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

/**
 * JSON already encoded, in parts (kept encodings of unchanged rows), written one after the other
 * into one body: nothing is copied together, so a large answer allocates nothing new.
 */
export function sendJsonParts(res: ServerResponse, status: number, parts: readonly Buffer[]): void {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': length });
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
}

/**
 * Characters per write when a list is streamed: well under V8's large-object size (128 KB), since
 * larger strings live in the large-object space, which only a full GC frees (docs/performance.md).
 */
const CHARS_PER_WRITE = 48 * 1024;

/**
 * Bytes a list may leave buffered for the client before the writer waits for it: waiting at every
 * slice (Node's 16 KB high-water mark) costs a round trip through the event loop and the client
 * per slice (docs/performance.md).
 */
const BUFFERED_BYTES_BEFORE_WAITING = 1024 * 1024;

/**
 * A JSON array written in slices (chunked), so a list of 30,000 containers never exists as one
 * string: `rowText` gives each item's JSON, and a slow client holds back the writes once a
 * megabyte waits for it (backpressure).
 */
export async function sendJsonArray<T>(res: ServerResponse, items: readonly T[], rowText: (item: T) => string): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  let chunk = '[';
  for (let index = 0; index < items.length; index++) {
    chunk += (index === 0 ? '' : ',') + rowText(items[index]!);
    if (chunk.length < CHARS_PER_WRITE) continue;
    res.write(chunk);
    if (res.writableLength > BUFFERED_BYTES_BEFORE_WAITING) await drained(res);
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
  // A fault the host found in a plugin carries its code, so a client can tell it from the engine's errors (dockerd has none of these).
  sendJson(res, status, isPluginFault(error) ? { message, code: error.code } : { message });
}

function isPluginFault(error: unknown): error is SwarmError {
  return PLUGIN_FAULTS.some((entry) => entry.is(error));
}

const PLUGIN_FAULTS = [CoreErrors.pluginFailed, CoreErrors.pluginTimedOut, CoreErrors.pluginContract];
