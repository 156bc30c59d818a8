// Decoding a request body the way the API server's JSON serializer does: fields the type does
// not have are dropped (and reported, so the handler can warn or, under fieldValidation=Strict,
// refuse), a JSON value of the wrong type is refused with Go's unmarshal error, nulls become
// absent, and quantities and times are stored in canonical form.
import { parseQuantity, formatQuantity, QuantityError, QUANTITY_FORMAT_ERROR } from './quantity.js';
import { definition, type Schema } from './schema.js';
import { canonicalMicroTime, canonicalTime, GoTimeParseError } from './time.js';

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

/**
 * The Go type an unmarshal error names. Time, MicroTime and IntOrString unmarshal themselves by
 * decoding into a string or an int32 first (UnmarshalJSON in apimachinery's time.go,
 * micro_time.go and intstr.go), so their errors name that inner type.
 */
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
      return 'int32';
    case 'time':
    case 'microTime':
      return 'string';
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

/** UnmarshalTypeError's names for JSON values. */
const jsonType = (value: Json): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'object'
        ? 'object'
        : typeof value === 'boolean'
          ? 'bool'
          : typeof value;

interface Context {
  unknown: string[];
  /** The Go struct a field belongs to and the field's dotted path without indices (for unmarshal errors). */
  struct: string;
  goPath: string;
}

/** encoding/json's UnmarshalTypeError (sigs.k8s.io/json's decode.go, literalStore). */
function mismatch(value: Json, schema: Schema, context: Context): DecodeError {
  // a number names its text only where it failed to fit a numeric type ("number 1.5" into int32)
  const numeric = schema.kind === 'integer' || schema.kind === 'number' || schema.kind === 'intOrString';
  const what = typeof value === 'number' ? (numeric ? `number ${value}` : 'number') : jsonType(value);
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
      if (schema.format === 'byte') {
        // Go's base64 decoder skips line breaks (kustomize's secretGenerator wraps its data), and
        // the bytes are stored and served again as one unbroken line
        const bytes = value.replace(/[\r\n]/g, '');
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(bytes)) {
          throw new DecodeError(`illegal base64 data at input byte ${value.search(/[^A-Za-z0-9+/=\r\n]/)}`);
        }
        return bytes;
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
      // Quantity.UnmarshalJSON parses any JSON text but null (pkg/api/resource/quantity.go)
      if (typeof value !== 'string' && typeof value !== 'number') throw new DecodeError(QUANTITY_FORMAT_ERROR);
      try {
        return formatQuantity(parseQuantity(value));
      } catch (error) {
        if (error instanceof QuantityError) throw new DecodeError(error.message);
        throw error;
      }
    case 'intOrString':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' && Number.isInteger(value) && value < 2 ** 31 && value >= -(2 ** 31)) return value;
      throw mismatch(value, schema, context);
    case 'time':
    case 'microTime': {
      if (typeof value !== 'string') throw mismatch(value, schema, context);
      try {
        return schema.kind === 'time' ? canonicalTime(value) : canonicalMicroTime(value);
      } catch (error) {
        if (error instanceof GoTimeParseError) throw new DecodeError(error.message);
        throw error;
      }
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
