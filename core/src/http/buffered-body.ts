import type { IncomingMessage } from 'node:http';

/**
 * A request body read before its handler ran (by access control, which must see it): the
 * handler and the proxy take it from here instead of the drained stream. `parsed` is what the
 * handler reads as JSON when the body was amended (owner labels, an admission's defaults).
 */
interface BufferedBody {
  readonly raw: Buffer;
  readonly parsed?: unknown;
}

const bodies = new WeakMap<IncomingMessage, BufferedBody>();

export function keepBody(req: IncomingMessage, raw: Buffer, parsed?: unknown): void {
  bodies.set(req, parsed === undefined ? { raw } : { raw, parsed });
}

export function keptBody(req: IncomingMessage): BufferedBody | undefined {
  return bodies.get(req);
}
