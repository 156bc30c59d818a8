import type { IncomingMessage } from 'node:http';
import { CoreErrors } from '../errors.js';
import { keepBody, keptBody } from '../http/buffered-body.js';
import { parseGoJson } from './validation/go-json.js';

/**
 * Reads a JSON request body up to `limit` bytes. An empty body yields `undefined`. The values are
 * JSON.parse's; what Go's decoder would also see (repeated keys, how numbers were written) rides
 * along for checkBody (validation/go-json.ts).
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const kept = keptBody(req);
  if (kept?.parsed !== undefined) return kept.parsed;
  const type = req.headers['content-type'];
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw CoreErrors.bodyTooLarge({ size: String(declared), limit });
  const chunks: Buffer[] = kept ? [kept.raw] : [];
  let size = kept?.raw.length ?? 0;
  if (size > limit) throw CoreErrors.bodyTooLarge({ size: String(size), limit });
  for await (const chunk of (kept ? [] : req) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw CoreErrors.bodyTooLarge({ size: `more than ${limit}`, limit });
    }
    chunks.push(chunk);
  }
  // Kept: a handler that reads a body and then forwards the request sends it from here.
  if (!kept && size > 0) keepBody(req, Buffer.concat(chunks));
  if (size === 0) return undefined;
  if (type !== undefined && !/^application\/(.+\+)?json\b/i.test(type) && !/^text\/plain\b/i.test(type)) {
    throw CoreErrors.bodyNotJsonType({ type });
  }
  try {
    return parseGoJson(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw CoreErrors.bodyInvalidJson({ reason: (error as Error).message });
  }
}

export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const body = await readJsonBody(req, limit);
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw CoreErrors.bodyInvalidJson({ reason: 'expected an object' });
  }
  return body as Record<string, unknown>;
}
