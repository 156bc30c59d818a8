import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineClient } from '@swarm/plugin-sdk/helpers';
import { sendError } from '../http/responses.js';
import type { RelayCut } from './coalescing-relay.js';
import { pipeWithCut } from './pipe-with-cut.js';
import { sendRequestBody, upstreamHeaders } from './request-body.js';
import { endToEndHeaders, isHijackedAnswer } from './raw-http.js';

/**
 * Attach or exec start without an Upgrade header (the classic hijack): like the engine, answer
 * the status line and the stream type, then the raw bytes until the stream ends: no chunked
 * framing, which raw readers would take for output. The request body, if any, goes upstream.
 */
export function rawStreamFromEngine(
  engine: EngineClient,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  cut?: RelayCut,
): Promise<void> {
  return new Promise((resolve) => {
    const upstream = engine.request({ method: req.method ?? 'POST', path, headers: upstreamHeaders(req) });
    let takenOver = false;
    const socket = res.socket;
    const finish = () => resolve();
    res.on('close', () => {
      upstream.destroy();
      finish();
    });
    socket?.once('close', () => {
      upstream.destroy();
      finish();
    });
    upstream.on('error', (error) => {
      if (takenOver) socket?.destroy();
      else sendError(res, error);
      finish();
    });
    upstream.on('response', (answer) => {
      const type = String(answer.headers['content-type'] ?? '');
      if (!isHijackedAnswer(answer) || !socket) {
        res.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
        answer.pipe(res);
        return;
      }
      takenOver = true;
      res.statusCode = 200;
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nConnection: close\r\n\r\n`);
      pipeWithCut(answer, socket, cut, () => upstream.destroy());
      answer.on('end', finish);
    });
    sendRequestBody(req, upstream);
  });
}
