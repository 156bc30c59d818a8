// Request bodies as the API server takes them: JSON, YAML, or (for a few kinds) protobuf.
import type { IncomingMessage } from 'node:http';
import yaml from 'js-yaml';
import type { Json } from '../model/decode.js';
import { parseJsonBody, readBody } from './http-io.js';
import { decodeProtobuf } from './protobuf.js';
import { errors } from './status.js';

export function parseYaml(text: string): Json {
  try {
    return yaml.load(text) as Json;
  } catch (error) {
    throw errors.badRequest(`error decoding YAML: ${(error as Error).message}`);
  }
}

/** Reads an object body of the given kind in the media type its Content-Type names. */
export async function readObject(request: IncomingMessage, kind: string): Promise<Json> {
  const type = (request.headers['content-type'] ?? 'application/json').split(';')[0]!.trim();
  const raw = await readBody(request);
  if (type === 'application/yaml') return parseYaml(raw.toString());
  if (type === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(raw, kind);
  if (type !== 'application/json' && type !== '') {
    throw errors.unsupportedMediaType(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
    );
  }
  return parseJsonBody(raw);
}
