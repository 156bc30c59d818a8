import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallKind } from './call-kinds.js';
import type { Json, JsonObject } from './model.js';
import type { EngineState } from './state.js';

// The shapes routes and their handlers share, apart from the route table, so that handlers in
// other modules (event-stream.ts) do not import the table that imports them.
export interface Reply {
  status: number;
  body?: Json;
  /** Plain-text body (`_ping`). */
  text?: string;
}

export interface RouteContext {
  state: EngineState;
  params: string[];
  query: URLSearchParams;
  body: JsonObject;
  req: IncomingMessage;
  res: ServerResponse;
}

export interface Route {
  method: string;
  pattern: RegExp;
  /** Which imitated latency applies; none for streams. */
  kind?: CallKind;
  /** Returns a reply, or undefined when it wrote the response itself (streams). */
  handle(context: RouteContext): Reply | undefined;
}
