import type { ServerResponse } from 'node:http';
import { isSwarmError } from '@swarm/plugin-sdk';

/** An error the API answers with a given status and Docker's `{"message": ...}` body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

export function sendNoContent(res: ServerResponse, status = 204): void {
  res.writeHead(status);
  res.end();
}

/** Status and message a client sees for any error thrown by a handler or the cluster. */
export function describeError(error: unknown): { status: number; message: string } {
  if (error instanceof HttpError) return { status: error.status, message: error.message };
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
