import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** The client's side of one forwarded request. */
export interface ForwardedRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Set when the client asked to upgrade the connection. */
  readonly upgrade?: { readonly socket: Duplex; readonly head: Buffer } | undefined;
  /** Fires when the manager stops: endless streams (see endless-streams.ts) then end at a clean boundary. */
  readonly draining?: AbortSignal | undefined;
}

/** Which route a forwarded request came in on, as far as the transport depends on it (forwarding/index.ts's table). */
export type ForwardedRoute =
  /** `tty`: the container's; its attach stream is then raw bytes, else Docker's multiplexed frames. */
  | { readonly kind: 'container'; readonly operation: string; readonly tty?: boolean }
  | { readonly kind: 'exec'; readonly operation: string }
  | { readonly kind: 'image-save' }
  /** BuildKit's `/session`: the engine calls the client's session over HTTP/2 once it switched protocols. */
  | { readonly kind: 'buildkit-session' }
  | { readonly kind: 'primary' }
  | { readonly kind: 'call' };
