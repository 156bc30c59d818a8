// Reading request bodies and writing JSON answers the way the API server does (3 MiB request
// limit, Warning headers, Status bodies for errors), and the Accept header's table negotiation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Json } from '../model/decode.js';
import { ApiError, errors, type Status } from './status.js';

const MAX_BODY = 3 * 1024 * 1024;

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Request entity too large: limit is 3145728',
        reason: 'RequestEntityTooLarge',
        code: 413,
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function parseJsonBody(body: Buffer): Json {
  const text = body.toString('utf8');
  if (!text.trim()) throw errors.badRequest("Object 'Kind' is missing in ''");
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw errors.badRequest(`error decoding from json: ${(error as Error).message}`);
  }
}

export function sendJson(response: ServerResponse, code: number, body: unknown, warnings: readonly string[] = []): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | string[]> = {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(text)),
  };
  if (warnings.length) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  response.writeHead(code, headers);
  response.end(text);
}

export function sendStatus(response: ServerResponse, status: Status): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(response, status.code, status);
}

export function sendText(response: ServerResponse, code: number, text: string): void {
  response.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  response.end(text);
}

export interface Representation {
  table: boolean;
  /** as=PartialObjectMetadata(List): only metadata. */
  metadataOnly: boolean;
}

/** Reads the Accept header: JSON, a meta.k8s.io Table, or PartialObjectMetadata; protobuf-only clients get 406. */
export function negotiate(accept: string | undefined): Representation {
  if (!accept) return { table: false, metadataOnly: false };
  let sawJson = false;
  let sawProtobufOnly = true;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim());
    const options = Object.fromEntries(params.map((p) => p.split('=').map((s) => s.trim()) as [string, string]));
    if (type === 'application/json' || type === '*/*' || type === 'application/*') {
      sawProtobufOnly = false;
      if (options.as === 'Table' && options.g === 'meta.k8s.io' && (options.v === 'v1' || options.v === 'v1beta1'))
        return { table: true, metadataOnly: false };
      if ((options.as === 'PartialObjectMetadata' || options.as === 'PartialObjectMetadataList') && options.g === 'meta.k8s.io')
        return { table: false, metadataOnly: true };
      if (!options.as) sawJson = true;
    } else if (type === 'application/yaml') {
      sawProtobufOnly = false;
    }
  }
  if (sawProtobufOnly && !sawJson) {
    throw errors.notAcceptable(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  }
  return { table: false, metadataOnly: false };
}
