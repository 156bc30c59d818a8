import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { EngineEndpoint } from '@swarm/plugin-sdk';
import { engineHostHeader } from './dial.js';
import { HOP_BY_HOP } from './raw-http.js';

const agents = new Map<string, HttpAgent>();

function endpointKey(endpoint: EngineEndpoint): string {
  return endpoint.socketPath ?? `${endpoint.protocol}://${endpoint.host}:${endpoint.port}`;
}

/** Keep-alive agents per engine, so proxied calls skip the TCP (and TLS) handshake. */
function agentFor(endpoint: EngineEndpoint): HttpAgent {
  const key = endpointKey(endpoint);
  let agent = agents.get(key);
  if (!agent) {
    agent =
      endpoint.protocol === 'https'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 256, ...endpoint.tls })
        : new HttpAgent({ keepAlive: true, maxSockets: 256 });
    agents.set(key, agent);
  }
  return agent;
}

export interface EngineRequestInit {
  method: string;
  path: string;
  headers?: OutgoingHttpHeaders;
}

/** An HTTP(S) request to an engine; the caller writes the body and handles `response`. */
export function engineRequest(endpoint: EngineEndpoint, init: EngineRequestInit): ClientRequest {
  const base = {
    method: init.method,
    path: init.path,
    headers: { ...init.headers, host: engineHostHeader(endpoint) },
    agent: agentFor(endpoint),
  };
  const target = endpoint.socketPath ? { socketPath: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port };
  return endpoint.protocol === 'https' ? httpsRequest({ ...base, ...target }) : httpRequest({ ...base, ...target });
}

/** Headers worth forwarding between client and engine (hop-by-hop ones dropped). */
export function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

export interface EngineJsonResult {
  status: number;
  body: unknown;
}

/** A small JSON call to an engine (inspect, lists): the answer is buffered and parsed. */
export function engineJson(
  endpoint: EngineEndpoint,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<EngineJsonResult> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = engineRequest(endpoint, {
      method,
      path,
      headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    });
    request.setTimeout(timeoutMs, () =>
      request.destroy(new Error(`engine ${endpointKey(endpoint)} did not answer ${method} ${path} within ${timeoutMs} ms`)),
    );
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
        } catch {
          // not JSON: keep the text (engines answer some errors as plain text)
        }
        resolve({ status: response.statusCode ?? 500, body: parsed });
      });
    });
    request.end(payload);
  });
}

/** The message of an engine error answer (`{"message": ...}` or plain text). */
export function engineErrorMessage(body: unknown): string {
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') {
    return (body as { message: string }).message;
  }
  return typeof body === 'string' ? body.trim() : JSON.stringify(body);
}
