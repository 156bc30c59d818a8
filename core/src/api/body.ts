import type { IncomingMessage } from 'node:http';
import { HttpError } from './responses.js';

/** Reads a JSON request body up to `limit` bytes. An empty body yields `undefined`. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = req.headers['content-type'];
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw new HttpError(413, `request body too large: ${declared} bytes, the limit is ${limit}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new HttpError(413, `request body too large: more than ${limit} bytes, the limit is ${limit}`);
    }
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  if (type !== undefined && !/^application\/(.+\+)?json\b/i.test(type) && !/^text\/plain\b/i.test(type)) {
    throw new HttpError(400, `Content-Type specified (${type}) must be 'application/json'`);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (error) {
    throw new HttpError(400, `invalid JSON body: ${(error as Error).message}`);
  }
}

export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const body = await readJsonBody(req, limit);
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'invalid JSON body: expected an object');
  }
  return body as Record<string, unknown>;
}
