import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { engineHostHeader, type EngineClient } from '@swarm/plugin-sdk/helpers';
import type { RelayCut } from './coalescing-relay.js';
import { pipeWithCut } from './pipe-with-cut.js';
import { rawRequestHead } from './raw-http.js';

/**
 * Hijack (attach, exec start): after rewriting the request line, the client's connection and a
 * fresh engine connection are joined byte for byte. The engine's own `101 UPGRADED` answer goes
 * straight to the client; a half-close in either direction is passed on, so `docker run -i`
 * with a closed stdin still receives the rest of the output.
 */
export function tunnelToEngine(
  engine: EngineClient,
  path: string,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  cut?: RelayCut,
): Promise<void> {
  return new Promise((resolve) => {
    const upstream = engine.dial();
    const hostHeader = engineHostHeader(engine.endpoint);
    let closed = 0;
    const closedOne = () => {
      closed += 1;
      if (closed === 2) resolve();
    };
    upstream.once('close', closedOne);
    client.once('close', closedOne);
    let connected = false;
    upstream.on('error', (error) => {
      if (connected || !client.writable) return client.destroy();
      // Nothing was relayed yet: the client still gets a Docker-style answer.
      const body = JSON.stringify({ message: `cannot reach the engine: ${error.message}` });
      client.end(
        `HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    client.on('error', () => upstream.destroy());
    upstream.once(engine.connectedEvent(), () => {
      connected = true;
      upstream.setNoDelay(true);
      upstream.write(rawRequestHead(req, path, hostHeader, { keepHops: true }));
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream);
      pipeWithCut(upstream, client, cut, () => {
        client.unpipe(upstream);
        upstream.destroy();
      });
    });
    // A client that went away (not a half-close) must not leave the engine side open.
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => {
      if (!client.writableEnded) client.end();
    });
  });
}
