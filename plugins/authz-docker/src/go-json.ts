import { PluginWireError } from './errors.js';

/*
 * JSON as Go's encoding/json writes and reads it, for the plugin wire: dockerd's plugin client
 * encodes with json.Encoder (HTML-safe escapes, a trailing newline) and decodes answers into
 * structs, whose field names match case-insensitively. Plugins written in Go see the same bytes
 * from swarm as from dockerd, and a plugin answering `{"allow": true}` works with both.
 */

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

/** `json.NewEncoder(w).Encode(value)`: Go escapes <, > and & and ends with a newline. */
export function encodeGoJson(value: unknown): string {
  const text = JSON.stringify(value).replace(HTML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${text}\n`;
}

/** Go's name for a JSON value's kind, as its UnmarshalTypeError says it. */
function goKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** What a struct field of type `string` or `bool` accepts. */
export type GoFieldType = 'string' | 'bool' | 'stringArray';

const GO_TYPE_NAME: Record<GoFieldType, string> = { string: 'string', bool: 'bool', stringArray: '[]string' };

function fits(value: unknown, type: GoFieldType): boolean {
  if (value === null) return true;
  if (type === 'string') return typeof value === 'string';
  if (type === 'bool') return typeof value === 'boolean';
  return Array.isArray(value) && value.every((item) => typeof item === 'string' || item === null);
}

const LITERALS = ['null', 'true', 'false'];

/** A JSON syntax error in Go's words where they are easy to know; Node.js's otherwise. */
function syntaxError(text: string, parseError: Error): string {
  const trimmed = text.trimStart();
  if (trimmed === '') return 'EOF';
  const first = trimmed[0]!;
  if (!'{["-0123456789tfn'.includes(first)) return `invalid character '${first}' looking for beginning of value`;
  const literal = LITERALS.find((word) => word[0] === first);
  if (literal !== undefined) {
    const at = [...literal].findIndex((c, i) => i < trimmed.length && trimmed[i] !== c);
    if (at > 0) return `invalid character '${trimmed[at]}' in literal ${literal} (expecting '${literal[at]}')`;
  }
  if (/end of JSON input/i.test(parseError.message)) return 'unexpected EOF';
  return parseError.message;
}

/**
 * Decode `text` into a struct named `goType` whose fields are `fields` (Go names), as
 * `json.NewDecoder(body).Decode(&v)` does: keys match field names case-insensitively, unknown keys
 * are ignored, `null` leaves a field unset. Throws an Error with Go's message on a bad answer.
 */
export function decodeGoStruct(text: string, goType: string, fields: Readonly<Record<string, GoFieldType>>): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PluginWireError(syntaxError(text, error as Error));
  }
  const result: Record<string, unknown> = {};
  if (parsed === null) return result;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new PluginWireError(`json: cannot unmarshal ${goKind(parsed)} into Go value of type ${goType}`);
  }
  const byLowerName = new Map(Object.keys(fields).map((name) => [name.toLowerCase(), name]));
  let typeError: string | undefined;
  for (const [key, value] of Object.entries(parsed)) {
    const field = byLowerName.get(key.toLowerCase());
    if (field === undefined) continue;
    const type = fields[field]!;
    if (!fits(value, type)) {
      // Go keeps decoding and reports the first type error at the end
      typeError ??= `json: cannot unmarshal ${goKind(value)} into Go struct field ${goType.split('.').pop()}.${field} of type ${GO_TYPE_NAME[type]}`;
      continue;
    }
    if (value !== null) result[field] = value;
  }
  if (typeError !== undefined) throw new PluginWireError(typeError);
  return result;
}
