import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineClient } from '@swarm/plugin-sdk/helpers';
import { sendError } from '../http/responses.js';
import { endToEndHeaders } from './raw-http.js';
import { sendRequestBody, upstreamHeaders } from './request-body.js';

/**
 * Forward the client's request to an engine and stream the answer back as it comes: nothing is
 * buffered, and a client that goes away aborts the engine call.
 */
export function proxyToEngine(engine: EngineClient, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const upstream = engine.request({ method: req.method ?? 'GET', path, headers: upstreamHeaders(req) });
    let settled = false;
    const finish = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
      finish();
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) sendError(res, error);
      else res.destroy();
      finish();
    });
    upstream.on('response', (answer) => {
      const status = answer.statusCode ?? 502;
      res.writeHead(status, answer.statusMessage, endToEndHeaders(answer.headers));
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
      answer.on('aborted', () => res.destroy());
    });
    sendRequestBody(req, upstream);
  });
}
