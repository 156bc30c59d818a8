import { request } from 'node:http';
import type { EngineEndpoint } from '@swarm/plugin-sdk';

/** A minimal JSON client for one agent's Docker engine (the driver's direct access path). */
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

  private send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) };
      const req = request({ host: this.endpoint.host, port: this.endpoint.port, method, path, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status >= 400) {
            let message = text;
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? text;
            } catch {
              // plain-text error
            }
            reject(Object.assign(new Error(message.trim()), { statusCode: status }));
            return;
          }
          resolve((text === '' ? undefined : JSON.parse(text)) as T);
        });
        response.on('error', reject);
      });
      req.setTimeout(10_000, () => req.destroy(new Error(`engine ${this.endpoint.host}:${this.endpoint.port} timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}
