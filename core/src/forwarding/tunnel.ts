import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import type { EngineClient } from '@swarm/plugin-sdk/helpers';
import { sendError } from '../http/responses.js';
import type { RelayCut } from './coalescing-relay.js';
import { pipeWithCut } from './pipe-with-cut.js';
import { endToEndHeaders, isHijackedAnswer } from './raw-http.js';
import { readUpgradeBody } from './upgrade-body.js';

/** The upgraded request as judged: its end-to-end headers, the upgrade asked, and exactly its own body's length. */
function upgradeHeaders(req: IncomingMessage, bodyLength: number): OutgoingHttpHeaders {
  const headers = endToEndHeaders(req.headers);
  // a repeated header stays repeated (BuildKit's /session names each method it serves in one), not joined with ", "
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (headers[name] !== undefined && values !== undefined && values.length > 1) headers[name] = values;
  }
  // the body goes at once: a 100 Continue would be one more answer to tell from the switch
  delete headers.expect;
  delete headers['content-length'];
  headers.connection = 'Upgrade';
  headers.upgrade = req.headers.upgrade ?? 'tcp';
  if (bodyLength > 0) headers['content-length'] = String(bodyLength);
  return headers;
}

/** The engine's answer head as it wrote it (its header names and order), for a client that now reads the stream. */
function answerHead(answer: IncomingMessage): Buffer {
  const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? ''}`];
  for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1] ?? ''}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/**
 * Hijack (attach, exec start, asked with `Upgrade`). The engine gets exactly the judged request:
 * its head and its own body (Content-Length bytes), nothing the client wrote after it. Only once
 * the engine switched protocols (`101 UPGRADED`, or dockerd's `200` raw stream) are the two
 * connections joined byte for byte, the client's early bytes first; a half-close in either
 * direction is passed on, so `docker run -i` with a closed stdin still receives the rest of the
 * output. Any other answer (404, 409 "container is paused") goes to the client as an ordinary
 * answer and its connection closes (`unswitched.ts`): a second request written behind the first
 * never reaches an engine (request smuggling), since only the manager's own parser may read requests.
 */
export async function tunnelToEngine(
  engine: EngineClient,
  path: string,
  request: { readonly req: IncomingMessage; readonly res: ServerResponse; readonly client: Duplex; readonly head: Buffer },
  cut?: RelayCut,
): Promise<void> {
  const { req, res, client } = request;
  const { body, rest } = await readUpgradeBody(req, client, request.head);
  // gone while its body was read: there is nobody to answer, and its 'close' has passed
  if (client.destroyed) return;
  await new Promise<void>((resolve) => {
    const upstream = engine.request({ method: req.method ?? 'POST', path, headers: upgradeHeaders(req, body.length) });
    let engineSide: Socket | undefined;
    let joined = false;
    let closed = 0;
    const closedOne = () => {
      closed += 1;
      if (closed === 2 || !joined) resolve();
    };
    client.once('close', () => {
      upstream.destroy();
      engineSide?.destroy();
      closedOne();
    });
    client.on('error', () => undefined);
    upstream.on('error', (error) => {
      if (joined || res.headersSent) client.destroy();
      else sendError(res, error);
      resolve();
    });

    const join = (head: Buffer, output: Readable, input: Socket) => {
      joined = true;
      engineSide = input;
      input.setNoDelay(true);
      cut?.boundaries.advance(head, false);
      client.write(head);
      if (rest.length > 0) input.write(rest);
      client.pipe(input);
      pipeWithCut(output, client, cut, () => {
        client.unpipe(input);
        input.destroy();
      });
      input.once('close', () => {
        if (!client.writableEnded) client.end();
        closedOne();
      });
    };
    upstream.on('upgrade', (answer: IncomingMessage, socket: Socket, early: Buffer) => {
      if (early.length > 0) socket.unshift(early);
      join(answerHead(answer), socket, socket);
    });
    upstream.on('response', (answer: IncomingMessage) => {
      if (isHijackedAnswer(answer)) return join(answerHead(answer), answer, answer.socket);
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndHeaders(answer.headers));
      answer.pipe(res);
      answer.on('aborted', () => res.destroy());
      res.once('close', () => resolve());
    });
    upstream.end(body);
  });
}
