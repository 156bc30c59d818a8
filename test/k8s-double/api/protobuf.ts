// Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown wrapping the object's
// generated.proto encoding), for the few kinds kubectl's typed clients post as protobuf:
// SelfSubjectAccessReview (`kubectl auth can-i`), SelfSubjectReview (`kubectl auth whoami`) and
// Eviction (`kubectl drain`). Answers are JSON, which those clients accept.
import type { Json, JsonObject } from '../model/decode.js';
import { errors } from './status.js';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Fields = Map<number, Array<Buffer | number>>;

/** Splits one protobuf message into its fields: varints as numbers, length-delimited ones as bytes. */
function fields(message: Buffer): Fields {
  const out: Fields = new Map();
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = message[offset++];
      if (byte === undefined) throw new Error('truncated varint');
      result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return result;
      shift += 7;
    }
  };
  while (offset < message.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = varint();
      value = message.subarray(offset, offset + length);
      offset += length;
    } else if (wire === 1) {
      value = message.readBigUInt64LE(offset) as unknown as number;
      offset += 8;
    } else if (wire === 5) {
      value = message.readUInt32LE(offset);
      offset += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
    const list = out.get(field) ?? [];
    list.push(value);
    out.set(field, list);
  }
  return out;
}

const text = (f: Fields, n: number): string | undefined => {
  const value = f.get(n)?.[0];
  return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
};
const message = (f: Fields, n: number): Fields | undefined => {
  const value = f.get(n)?.[0];
  return Buffer.isBuffer(value) ? fields(value) : undefined;
};
const strings = (f: Fields, n: number): string[] => (f.get(n) ?? []).filter(Buffer.isBuffer).map((b) => b.toString('utf8'));

function compact(object: Record<string, Json | undefined>): JsonObject {
  return Object.fromEntries(
    Object.entries(object).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  ) as JsonObject;
}

function objectMeta(f: Fields | undefined): JsonObject {
  if (!f) return {};
  return compact({ name: text(f, 1), generateName: text(f, 2), namespace: text(f, 3) });
}

const DECODERS: Record<string, (object: Fields) => JsonObject> = {
  SelfSubjectAccessReview: (object) => {
    const spec = message(object, 2);
    const resource = spec && message(spec, 1);
    const nonResource = spec && message(spec, 2);
    return {
      metadata: objectMeta(message(object, 1)),
      spec: compact({
        resourceAttributes: resource
          ? compact({
              namespace: text(resource, 1),
              verb: text(resource, 2),
              group: text(resource, 3),
              version: text(resource, 4),
              resource: text(resource, 5),
              subresource: text(resource, 6),
              name: text(resource, 7),
            })
          : undefined,
        nonResourceAttributes: nonResource ? compact({ path: text(nonResource, 1), verb: text(nonResource, 2) }) : undefined,
      }),
    };
  },
  SelfSubjectReview: (object) => ({ metadata: objectMeta(message(object, 1)) }),
  Eviction: (object) => {
    const options = message(object, 2);
    const grace = options?.get(1)?.[0];
    const preconditions = options && message(options, 2);
    return {
      metadata: objectMeta(message(object, 1)),
      deleteOptions: options
        ? compact({
            gracePeriodSeconds: typeof grace === 'number' ? grace : undefined,
            preconditions: preconditions ? compact({ uid: text(preconditions, 1), resourceVersion: text(preconditions, 2) }) : undefined,
            propagationPolicy: text(options, 4),
            dryRun: strings(options, 5),
          })
        : {},
    };
  },
};

/** Decodes a protobuf body of one of the kinds above into its JSON form; other kinds are 415. */
export function decodeProtobuf(body: Buffer, expectedKind: string): Json {
  const refuse = () =>
    errors.unsupportedMediaType(
      `the body of the request was in an unknown format - this API server double reads protobuf bodies of SelfSubjectAccessReview, SelfSubjectReview and Eviction only; send ${expectedKind} as application/json`,
    );
  const decoder = DECODERS[expectedKind];
  if (!decoder || body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw refuse();
  try {
    const unknown = fields(body.subarray(4));
    const typeMeta = message(unknown, 1);
    const raw = unknown.get(2)?.[0];
    if (!Buffer.isBuffer(raw)) throw new Error('no object in the envelope');
    const kind = typeMeta ? text(typeMeta, 2) : undefined;
    if (kind && kind !== expectedKind) throw refuse();
    const apiVersion = typeMeta && text(typeMeta, 1);
    return { ...(apiVersion ? { apiVersion } : {}), kind: expectedKind, ...decoder(fields(raw)) } as Json;
  } catch (error) {
    if (error instanceof Error && 'status' in error) throw error;
    throw errors.badRequest(`error decoding protobuf: ${(error as Error).message}`);
  }
}
