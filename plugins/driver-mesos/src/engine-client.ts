import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { EngineEndpoint } from '@swarm/plugin-sdk';

const REQUEST_TIMEOUT_MS = 10_000;

function errorText(text: string): string {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text; // plain-text error
  }
}

/** A minimal JSON client for one agent's Docker engine (the driver's direct access path), over HTTP or TLS. */
export class EngineClient {
  constructor(readonly endpoint: EngineEndpoint) {}

  get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.send<T>('POST', path, body);
  }

  delete(path: string): Promise<void> {
    return this.send<void>('DELETE', path);
  }

  /** A long-lived GET (the engine's `/events`): resolves with the open response once it answers 200. */
  stream(path: string, connectTimeoutMs = REQUEST_TIMEOUT_MS): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = this.open('GET', path, {}, (response) => {
        if ((response.statusCode ?? 0) < 400) {
          req.setTimeout(0);
          resolve(response);
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          reject(Object.assign(new Error(errorText(Buffer.concat(chunks).toString('utf8')).trim()), { statusCode: response.statusCode })),
        );
      });
      req.setTimeout(connectTimeoutMs, () => req.destroy(new Error(`engine ${this.describe()} timed out`)));
      req.on('error', reject);
      req.end();
    });
  }

  describe(): string {
    return `${this.endpoint.host}:${this.endpoint.port}`;
  }

  private open(
    method: string,
    path: string,
    headers: Record<string, string>,
    onResponse: (response: IncomingMessage) => void,
  ): ClientRequest {
    const { host, port, protocol, tls } = this.endpoint;
    const options: RequestOptions = { host, port, method, path, headers };
    if (protocol === 'http') return httpRequest(options, onResponse);
    return httpsRequest(
      { ...options, ca: tls?.ca, cert: tls?.cert, key: tls?.key, rejectUnauthorized: tls?.rejectUnauthorized ?? true },
      onResponse,
    );
  }

  private send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> =
        payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) };
      const req = this.open(method, path, headers, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status >= 400) {
            reject(Object.assign(new Error(errorText(text).trim()), { statusCode: status }));
            return;
          }
          resolve((text === '' ? undefined : JSON.parse(text)) as T);
        });
        response.on('error', reject);
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`engine ${this.describe()} timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}
