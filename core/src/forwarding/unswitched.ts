import type { Duplex } from 'node:stream';

/** How long a client may keep writing (read and dropped) after its upgraded request got an ordinary answer. */
const LINGER_MS = 5_000;

/**
 * An upgraded request answered without a switch of protocols (a refusal, a 404, the engine's 409,
 * or an answer the manager gave itself) leaves a connection no parser reads: Node let it go at the
 * upgrade. What the client wrote behind the request is read and dropped, never forwarded, and the
 * connection closes a little later, so the client reads the answer before any reset.
 */
export function closeUnswitched(client: Duplex): void {
  client.end();
  client.on('data', () => undefined);
  client.resume();
  setTimeout(() => client.destroy(), LINGER_MS).unref();
}
