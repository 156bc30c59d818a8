import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { keptBody } from '../http/buffered-body.js';
import { endToEndHeaders } from './raw-http.js';

/**
 * The headers and body an engine gets for a client's request. A body access control read first
 * (and may have amended) goes from memory with its own length; any other streams through.
 */
export function upstreamHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const headers = endToEndHeaders(req.headers);
  const kept = keptBody(req);
  if (kept) {
    delete headers['transfer-encoding'];
    headers['content-length'] = String(kept.raw.length);
  }
  return headers;
}

export function sendRequestBody(req: IncomingMessage, upstream: ClientRequest): void {
  const kept = keptBody(req);
  if (kept) upstream.end(kept.raw);
  else req.pipe(upstream);
}
