import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { ErrorCodes, SwarmError, type EngineEndpoint } from '@swarm/plugin-sdk';

export interface EngineRequest {
  method?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A raw body (tar archive) streamed to the engine. */
  upload?: Readable | Buffer;
  headers?: Record<string, string>;
  /** Milliseconds until the engine must have answered (headers); 0 = no limit (streams). */
  timeoutMs: number;
  /** Dial anew instead of reusing a kept-alive connection (a stopping engine still answers on those). */
  freshConnection?: boolean;
}

/** True when the engine was not reached at all (refused, reset, timed out), as opposed to an API error. */
export function isConnectionError(error: unknown): boolean {
  return error instanceof SwarmError && error.details?.['connection'] === true;
}

function connectionError(endpoint: EngineEndpoint, reason: string, cause?: unknown): SwarmError {
  return new SwarmError(ErrorCodes.ENGINE_ERROR, `Cannot connect to the Docker engine endpoint ${endpoint.host}:${endpoint.port}: ${reason}`, {
    cause,
    details: { connection: true },
  });
}

function apiError(status: number, text: string): SwarmError {
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // not JSON: keep the text (a proxy or a web server that is not an engine)
  }
  if (message === '') message = `HTTP ${status}`;
  const code = status === 404 ? ErrorCodes.NOT_FOUND : status === 409 ? ErrorCodes.CONFLICT : ErrorCodes.ENGINE_ERROR;
  return new SwarmError(code, message, { httpStatus: status, details: { status } });
}

function queryString(query: EngineRequest['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

/** Open a request and resolve with the response once its headers arrive (or a coded error). */
export function openEngineRequest(endpoint: EngineEndpoint, path: string, options: EngineRequest): Promise<IncomingMessage> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    payload = Buffer.from(JSON.stringify(options.body));
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  } else if (Buffer.isBuffer(options.upload)) {
    payload = options.upload;
    headers['Content-Type'] ??= 'application/x-tar';
    headers['Content-Length'] = String(payload.length);
  } else if (options.upload) {
    headers['Content-Type'] ??= 'application/x-tar';
  }
  const requestOptions: RequestOptions = {
    method: options.method ?? 'GET',
    path: path + queryString(options.query),
    headers,
    ...(endpoint.socketPath ? { socketPath: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port }),
    ...(endpoint.tls ?? {}),
    ...(options.freshConnection ? { agent: false } : {}),
  };
  return new Promise((resolve, reject) => {
    const send = endpoint.protocol === 'https' ? httpsRequest : httpRequest;
    const request = send(requestOptions);
    let timer: NodeJS.Timeout | undefined;
    if (options.timeoutMs > 0) {
      timer = setTimeout(() => {
        request.destroy(connectionError(endpoint, `no answer within ${options.timeoutMs / 1000} s`));
      }, options.timeoutMs);
    }
    request.on('error', (error: Error) => {
      clearTimeout(timer);
      reject(error instanceof SwarmError ? error : connectionError(endpoint, error.message, error));
    });
    request.on('response', (response) => {
      clearTimeout(timer);
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        resolve(response);
        return;
      }
      readAll(response).then((text) => reject(apiError(status, text)), reject);
    });
    if (payload) request.end(payload);
    else if (options.upload && !Buffer.isBuffer(options.upload)) options.upload.pipe(request);
    else request.end();
  });
}

/** A request answered with JSON (or nothing), the whole exchange bounded by `timeoutMs`. */
export async function engineJson<T>(endpoint: EngineEndpoint, path: string, options: EngineRequest): Promise<T> {
  const started = Date.now();
  const response = await openEngineRequest(endpoint, path, options);
  // what is left of the time budget bounds the body too: an engine may stall mid-answer
  const left = Math.max(1, options.timeoutMs - (Date.now() - started));
  const timer = options.timeoutMs > 0 ? setTimeout(() => response.destroy(connectionError(endpoint, `no answer within ${options.timeoutMs / 1000} s`)), left) : undefined;
  let text: string;
  try {
    text = await readAll(response);
  } finally {
    clearTimeout(timer);
  }
  if (text.trim() === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new SwarmError(ErrorCodes.ENGINE_ERROR, `${endpoint.host}:${endpoint.port} answered ${path} with something that is not JSON`, { cause: error });
  }
}
