import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** One request the API front received, before it is routed. */
export interface IncomingApiRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The path without its `/v1.NN` prefix. */
  readonly path: string;
  /** Set when the client asked to upgrade the connection (attach, exec start). */
  readonly upgrade?: { readonly socket: Duplex; readonly head: Buffer };
}

/**
 * What the API front asks a replicated manager: the rows `/info` starts with, and whether a
 * request is served here or elsewhere (a replica hands everything but `/_ping` and `/info` to the
 * primary).
 */
export interface ManagerRole {
  /** Whether this manager is the primary now. */
  readonly isPrimary: boolean;
  /** The primary's advertise address as last known (this manager's own while it is primary). */
  readonly primary: string | undefined;
  /** `Role` (and on a replica `Primary`), shown first in /info's SystemStatus. */
  statusRows(): Array<[string, string]>;
  /** Serves the request somewhere else and settles when done, or returns undefined for the local handlers. */
  forward(request: IncomingApiRequest): Promise<void> | undefined;
}
