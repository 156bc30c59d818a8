// Decoding a request body the way the API server's JSON serializer does: fields the type does
// not have are dropped (and reported, so the handler can warn or, under fieldValidation=Strict,
// refuse), a JSON value of the wrong type is refused with Go's unmarshal error, nulls become
// absent, and quantities and times are stored in canonical form.
import { parseQuantity, formatQuantity, QuantityError } from './quantity.js';
import { definition, type Schema } from './schema.js';
import { formatMicroTime, formatTime, parseTime } from './time.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class DecodeError extends Error {}

export interface Decoded {
  value: Json;
  /** Paths of dropped fields, as the API server names them: `spec.containers[0].foo`. */
  unknownFields: string[];
}

const shortName = (name: string): string => {
  const parts = name.split('.');
  return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
};

function goType(schema: Schema): string {
  switch (schema.kind) {
    case 'string':
      return schema.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return schema.format;
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'quantity':
      return 'resource.Quantity';
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'time':
      return 'v1.Time';
    case 'microTime':
      return 'v1.MicroTime';
    case 'any':
      return 'interface {}';
    case 'ref':
      return shortName(schema.name);
    case 'array':
      return `[]${goType(schema.items)}`;
    case 'map':
      return `map[string]${goType(schema.values)}`;
  }
}

const jsonType = (value: Json): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;

interface Context {
  unknown: string[];
  /** The Go struct a field belongs to and the field's dotted path without indices (for unmarshal errors). */
  struct: string;
  goPath: string;
}

function mismatch(value: Json, schema: Schema, context: Context): DecodeError {
  const what = typeof value === 'number' ? `number ${value}` : jsonType(value);
  const where = context.goPath ? ` into Go struct field ${context.struct}.${context.goPath}` : ' into Go value';
  return new DecodeError(`json: cannot unmarshal ${what}${where} of type ${goType(schema)}`);
}

function decodeValue(value: Json, schema: Schema, path: string, context: Context): Json | undefined {
  if (value === null && schema.kind !== 'any') return undefined;
  switch (schema.kind) {
    case 'any':
      return value;
    case 'string':
      if (typeof value !== 'string') throw mismatch(value, schema, context);
      if (schema.format === 'byte' && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
        throw new DecodeError(`illegal base64 data at input byte ${value.search(/[^A-Za-z0-9+/=]/)}`);
      }
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw mismatch(value, schema, context);
      return value;
    case 'number':
      if (typeof value !== 'number') throw mismatch(value, schema, context);
      return value;
    case 'integer': {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw mismatch(value, schema, context);
      const limit = schema.format === 'int32' ? 2 ** 31 : 2 ** 63;
      if (value >= limit || value < -limit) throw mismatch(value, schema, context);
      return value;
    }
    case 'quantity':
      if (typeof value !== 'string' && typeof value !== 'number') throw mismatch(value, schema, context);
      try {
        return formatQuantity(parseQuantity(value));
      } catch (error) {
        if (error instanceof QuantityError) throw new DecodeError(error.message);
        throw error;
      }
    case 'intOrString':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'string') return value;
      throw mismatch(value, schema, context);
    case 'time':
    case 'microTime': {
      if (typeof value !== 'string') throw mismatch(value, schema, context);
      if (value === '') return undefined;
      const date = parseTime(value);
      if (!date) throw new DecodeError(`parsing time "${value}" as "2006-01-02T15:04:05Z07:00": cannot parse "${value}" as a time`);
      if (schema.kind === 'time') return formatTime(date);
      const micros = /\.\d{3}(\d{1,3})/.exec(value)?.[1];
      return formatMicroTime(date, micros ? Number(micros.padEnd(3, '0')) : 0);
    }
    case 'array': {
      if (!Array.isArray(value)) throw mismatch(value, schema, context);
      const items: Json[] = [];
      value.forEach((item, index) => {
        const decoded = decodeValue(item, schema.items, `${path}[${index}]`, context);
        items.push(decoded === undefined ? (null as Json) : decoded);
      });
      return items;
    }
    case 'map': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw mismatch(value, schema, context);
      const out: JsonObject = {};
      for (const [key, item] of Object.entries(value)) {
        const decoded = decodeValue(item, schema.values, `${path}[${key}]`, context);
        if (decoded !== undefined) out[key] = decoded;
        else if (item === null && schema.values.kind === 'string') out[key] = '';
      }
      return out;
    }
    case 'ref':
      return decodeObject(value, schema.name, path, context);
  }
}

function decodeObject(value: Json, name: string, path: string, outer: Context): Json {
  const object = definition(name);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw mismatch(value, { kind: 'ref', name }, outer);
  if (object.open) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const fieldPath = path ? `${path}.${key}` : key;
    const schema = object.properties[key];
    if (!schema) {
      outer.unknown.push(fieldPath);
      continue;
    }
    const context: Context = {
      unknown: outer.unknown,
      struct: shortName(name).split('.')[1]!,
      goPath: outer.goPath ? `${outer.goPath}.${key}` : key,
    };
    const decoded = decodeValue(item, schema, fieldPath, context);
    if (decoded !== undefined) out[key] = decoded;
  }
  return out;
}

/** Decodes a whole object of the named type (e.g. `io.k8s.api.core.v1.Pod`). */
export function decode(value: Json, typeName: string): Decoded {
  const unknownFields: string[] = [];
  const decoded = decodeObject(value, typeName, '', { unknown: unknownFields, struct: '', goPath: '' });
  return { value: decoded, unknownFields };
}
