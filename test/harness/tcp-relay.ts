import type { Socket } from 'node:net';

/**
 * Pipes `client` and `upstream` into each other and keeps both in `open` while they last; when
 * either closes or fails, both close (a proxy a test controls: it counts, cuts or drops traffic).
 */
export function relaySockets(client: Socket, upstream: Socket, open: Set<Socket>): void {
  for (const socket of [client, upstream]) {
    open.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open.delete(socket);
      client.destroy();
      upstream.destroy();
    });
  }
  client.pipe(upstream).pipe(client);
}
