import { arrayLiteral, sourceEntries } from './go-json.js';

/**
 * The Go types of the Engine API's request bodies, decoded as dockerd's encoding/json decodes
 * them, so that what swarm judges and sends an engine is what the engine would have read from the
 * client's bytes:
 * - a key names a field in any case (bytes.EqualFold: ASCII case, and the Kelvin sign and long s
 *   for k and s); a key that names no field is ignored, so it is left out;
 * - a repeated key is decoded into what the earlier one filled: a struct or a pointer to one
 *   merges, a map adds keys (each value decoded afresh), a list decodes its items into the items
 *   it held, even those a shorter list had hidden (Go keeps the slice's backing array);
 * - `null` empties a pointer, map or list and leaves a string, number, bool or struct as it was;
 *   a `null` map value or list item is that type's zero;
 * - an integer field takes only an integer written as one (`1e3`, `1.0` are refused), within its
 *   size; an unsigned one no minus sign at all;
 * - a wrong kind is a mismatch: Go goes on decoding and refuses the body with the first one.
 * Numbers beyond 2^53 are refused, since JavaScript would round them.
 *
 * Written out by hand rather than with a schema library: these few kinds are all the bodies need,
 * and a library's code and schema objects would be most of what a small manager keeps in memory.
 */

/** Where a value does not decode: the path to it, its Go type's name and the JSON kind Go names. */
export interface GoMismatch {
  readonly path: Array<string | number>;
  readonly type: string;
  readonly kind: string;
}

/** One decoding: the first mismatch found, in the order of the text. */
export interface Decoding {
  found?: GoMismatch;
}

export interface GoType {
  /** The first mismatch in `value`, in document order, or undefined when it decodes. */
  check(value: unknown): GoMismatch | undefined;
  /** `value` as the Go value it decodes to, written back as JSON (a nil or zero field left out). */
  canonical(value: unknown): unknown;
  /**
   * Decodes `value` into a Go value that holds `into` (undefined: nil, or the zero value), as a
   * repeated key does; `literal` is how a number was written when JSON.parse's value does not
   * spell it. Answers the new value (undefined: nil).
   */
  decode(value: unknown, into: unknown, at: ReadonlyArray<string | number>, run: Decoding, literal?: string): unknown;
  /** What a `null` map value or list item becomes. */
  readonly zero: unknown;
}

type Shape = Readonly<Record<string, GoType>>;

/** A JSON object (not an array, not null). */
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON kind in Go's words: a number is named with its text where an integer field refused it. */
function jsonKind(value: unknown, type: string, literal: string | undefined): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return /int/.test(type) ? `number ${literal ?? String(value)}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** Records a mismatch (the first one counts); the caller leaves the target as it was, as Go does. */
function refuse(run: Decoding, at: ReadonlyArray<string | number>, type: string, value: unknown, literal?: string): undefined {
  run.found ??= { path: [...at], type, kind: jsonKind(value, type, literal) };
  return undefined;
}

/** `value` decoded as `type` from nothing: the Go value (its zero when nil) and the first mismatch. */
export function decodeGo(type: GoType, value: unknown): { value: unknown; found?: GoMismatch } {
  const run: Decoding = {};
  const decoded = type.decode(value, undefined, [], run) ?? type.zero;
  return run.found ? { value: decoded, found: run.found } : { value: decoded };
}

function goType(zero: unknown, decode: GoType['decode']): GoType {
  const type: GoType = {
    zero,
    decode,
    check: (value) => decodeGo(type, value).found,
    canonical: (value) => decodeGo(type, value).value,
  };
  return type;
}

/**
 * A key as Go's decoder compares it with field names: ASCII letters in one case, the Kelvin sign
 * as k and the long s as s (the only other runes whose case folds reach ASCII letters).
 */
function folded(key: string): string {
  return key.replace(/[A-Z\u212a\u017f]/g, (char) => (char === '\u212a' ? 'k' : char === '\u017f' ? 's' : char.toLowerCase()));
}

/** The field a key names: the exact name first, else the one it folds to. */
function fieldNamer(names: readonly string[]): (key: string) => string | undefined {
  const exact = new Set(names);
  const byFold = new Map<string, string>();
  for (const name of names) if (!byFold.has(folded(name))) byFold.set(folded(name), name);
  return (key) => (exact.has(key) ? key : byFold.get(folded(key)));
}

// Scalars: null leaves a value as it was; a pointer to one (`*bool`, `*int64`) it empties.

function scalar(type: string, accepts: (value: unknown, literal: string | undefined) => boolean, zero: unknown, pointer: boolean): GoType {
  return goType(zero, (value, into, at, run, literal) => {
    if (value === null) return pointer ? undefined : into;
    if (!accepts(value, literal)) return refuse(run, at, type, value, literal) ?? into;
    return value === 0 ? 0 : value;
  });
}

/** An integer written as one (no fraction, no exponent), within `[min, max]`; JavaScript keeps integers exact only to 2^53. */
function integer(min: number, max: number, unsigned: boolean) {
  return (value: unknown, literal: string | undefined): boolean =>
    typeof value === 'number' &&
    Number.isSafeInteger(value) &&
    value >= min &&
    value <= max &&
    (literal === undefined || (/^-?\d+$/.test(literal) && !(unsigned && literal.startsWith('-'))));
}

const isString = (value: unknown) => typeof value === 'string';
const isBool = (value: unknown) => typeof value === 'boolean';
const INT = integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, false);
const UINT = integer(0, Number.MAX_SAFE_INTEGER, true);

export const goString = scalar('string', isString, '', false);
export const goBool = scalar('bool', isBool, false, false);
export const goBoolPointer = scalar('bool', isBool, null, true);
export const goInt = scalar('int64', INT, 0, false);
/** Go's `int` (64 bits on the platforms dockerd runs on). */
export const goIntNative = scalar('int', INT, 0, false);
export const goIntPointer = scalar('int64', INT, null, true);
export const goIntNativePointer = scalar('int', INT, null, true);
export const goUint = scalar('uint64', UINT, 0, false);
export const goUint16 = scalar('uint16', integer(0, 0xffff, true), 0, false);
export const goUint32 = scalar('uint32', integer(0, 0xffffffff, true), 0, false);
export const goUintNative = scalar('uint', UINT, 0, false);

/** A struct (or, `pointer`, a pointer to one): fields merge into what it held. */
function struct(name: string, shape: Shape, pointer: boolean): GoType {
  const nameOf = fieldNamer(Object.keys(shape));
  return goType(pointer ? null : {}, (value, into, at, run) => {
    if (value === null) return pointer ? undefined : into;
    if (!isObject(value)) return refuse(run, at, name, value) ?? into;
    const out: Record<string, unknown> = isObject(into) ? { ...into } : {};
    for (const { key, value: item, literal } of sourceEntries(value)) {
      const field = nameOf(key);
      if (field !== undefined) decodeField(out, field, shape[field]!, item, at, run, literal);
    }
    return out;
  });
}

function decodeField(
  out: Record<string, unknown>,
  field: string,
  type: GoType,
  item: unknown,
  at: ReadonlyArray<string | number>,
  run: Decoding,
  literal: string | undefined,
): void {
  const decoded = type.decode(item, out[field], [...at, field], run, literal);
  if (decoded === undefined) delete out[field];
  else out[field] = decoded;
}

export const goStruct = (name: string, shape: Shape): GoType => struct(name, shape, false);
export const goStructPointer = (name: string, shape: Shape): GoType => struct(name, shape, true);

/** A request body: a pointer to a struct, as dockerd decodes it. */
export function goBody(name: string, shape: Shape): GoType {
  return struct(name, shape, false);
}

/**
 * A request body with an embedded pointer to another struct, whose fields Go promotes to the top:
 * keys naming them fill a struct of their own, made at the first such key (even a `null` one), and
 * `finish` decides what the body is with it (what dockerd's code does after decoding).
 */
export function goBodyEmbedding(
  name: string,
  shape: Shape,
  embedded: Shape,
  finish: (body: Record<string, unknown>, embedded: Record<string, unknown> | undefined) => Record<string, unknown>,
): GoType {
  const nameOf = fieldNamer([...Object.keys(shape), ...Object.keys(embedded)]);
  return goType({}, (value, into, at, run) => {
    if (value === null) return into;
    if (!isObject(value)) return refuse(run, at, name, value) ?? into;
    const out: Record<string, unknown> = {};
    let inner: Record<string, unknown> | undefined;
    for (const { key, value: item, literal } of sourceEntries(value)) {
      const field = nameOf(key);
      if (field === undefined) continue;
      if (Object.hasOwn(shape, field)) decodeField(out, field, shape[field]!, item, at, run, literal);
      else decodeField((inner ??= {}), field, embedded[field]!, item, at, run, literal);
    }
    return finish(out, inner);
  });
}

/** A map: keys add to what it held, each value decoded afresh; `null` empties it. Written back sorted by key, as Go writes maps. */
export function goMap(name: string, element: GoType): GoType {
  return goType(null, (value, into, at, run) => {
    if (value === null) return undefined;
    if (!isObject(value)) return refuse(run, at, name, value) ?? into;
    const out: Record<string, unknown> = isObject(into) ? { ...into } : {};
    for (const { key, value: item, literal } of sourceEntries(value)) {
      // Never a key of the decoded object (it would set its prototype): left out, so never sent either.
      if (key === '__proto__') continue;
      out[key] = element.decode(item, undefined, [...at, key], run, literal) ?? element.zero;
    }
    // A Go map has no order; dockerd writes one back sorted (inspect), and so does swarm, so a
    // judge that names the first key it refuses names the same one in both.
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** The items a list held, hidden ones included: Go decodes a later list into them. */
const BACKING = Symbol('go slice backing');
type Backed = unknown[] & { [BACKING]?: unknown[] };

function backing(into: unknown): unknown[] {
  if (!Array.isArray(into)) return [];
  return (into as Backed)[BACKING] ?? into;
}

/** A slice: items decode into those it held; `[]` and `null` start it anew. */
export function goList(name: string, element: GoType): GoType {
  return goType(null, (value, into, at, run) => {
    if (value === null) return undefined;
    if (!Array.isArray(value)) return refuse(run, at, name, value) ?? into;
    const held = value.length === 0 ? [] : backing(into);
    const out: Backed = value.map(
      (item, index) => element.decode(item, held[index], [...at, index], run, arrayLiteral(value, index)) ?? element.zero,
    );
    if (held.length > out.length) Object.defineProperty(out, BACKING, { value: [...out, ...held.slice(out.length)], enumerable: false });
    return out;
  });
}

/** A Go array of fixed length (`[2]uint`): items decode into those it held, the rest are zero; `null` leaves it. */
export function goArray(name: string, length: number, element: GoType, pointer = false): GoType {
  return goType(pointer ? null : Array.from({ length }, () => element.zero), (value, into, at, run) => {
    if (value === null) return pointer ? undefined : into;
    if (!Array.isArray(value)) return refuse(run, at, name, value) ?? into;
    const held = Array.isArray(into) ? into : [];
    return Array.from({ length }, (_, index) =>
      index < value.length
        ? (element.decode(value[index], held[index], [...at, index], run, arrayLiteral(value, index)) ?? element.zero)
        : element.zero,
    );
  });
}

const string: GoType = goType('', (value, into, at, run) =>
  value === null ? into : isString(value) ? value : refuse(run, at, 'string', value),
);

export const goStrings = goList('[]string', string);
export const goStringMap = goMap('map[string]string', goString);
/** Docker's `map[string]struct{}` sets (ExposedPorts, Volumes): each value must be an object, and is read as nothing. */
export const goSet = goMap('map[string]struct {}', goStruct('struct {}', {}));

/**
 * Docker's `strslice.StrSlice`: one string or a list of them, decoded afresh by its own
 * UnmarshalJSON (a `null` item is ""); `null` empties it.
 */
export const goStrSlice = goType(null, (value, into, at, run) => {
  if (value === null) return undefined;
  if (isString(value)) return [value];
  if (Array.isArray(value) && value.every((item) => item === null || isString(item))) return value.map((item) => item ?? '');
  return refuse(run, at, 'strslice.StrSlice', value) ?? into;
});
