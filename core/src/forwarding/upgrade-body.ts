import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { CoreErrors } from '../errors.js';

/** An upgraded request's body is a small JSON object (exec start's `{"Detach":false,"Tty":false}`). */
export const MAX_UPGRADE_BODY_BYTES = 1024 * 1024;
const BODY_WAIT_MS = 10_000;

/** An upgraded request's own body, and what the client wrote after it (bytes meant for after the switch). */
export interface UpgradeBody {
  readonly body: Buffer;
  readonly rest: Buffer;
}

/**
 * Node hands an upgraded request over with the bytes after its head unparsed: its body, and
 * whatever the client wrote next. Only the body, as long as Content-Length says, belongs to the
 * request that was judged; the rest is either stream data (once the engine switched protocols) or
 * a request nobody judged, so it is kept apart. A chunked upgrade is refused: dockerd's clients
 * never send one, and its end could only be found by decoding it.
 */
export async function readUpgradeBody(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<UpgradeBody> {
  if (req.headers['transfer-encoding'] !== undefined) {
    throw CoreErrors.invalidParameter({
      name: 'Transfer-Encoding',
      reason: 'a request that upgrades the connection must send its body with a Content-Length',
    });
  }
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_UPGRADE_BODY_BYTES) throw CoreErrors.bodyTooLarge({ size: String(declared), limit: MAX_UPGRADE_BODY_BYTES });
  const received = head.length >= declared ? head : await readAtLeast(socket, head, declared);
  if (received.length < declared) {
    throw CoreErrors.invalidParameter({
      name: 'Content-Length',
      reason: `the body ended after ${received.length} of its ${declared} bytes`,
    });
  }
  return { body: received.subarray(0, declared), rest: received.subarray(declared) };
}

/** `head` and then the socket's bytes until there are `size` of them, the socket closes or the wait ends; the socket is left paused. */
function readAtLeast(socket: Duplex, head: Buffer, size: number): Promise<Buffer> {
  if (socket.destroyed) return Promise.resolve(head);
  return new Promise((resolve) => {
    const chunks = [head];
    let length = head.length;
    const done = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', done);
      socket.pause();
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= size) done();
    };
    const timer = setTimeout(done, BODY_WAIT_MS);
    socket.on('data', onData);
    socket.once('close', done);
    socket.resume();
  });
}
