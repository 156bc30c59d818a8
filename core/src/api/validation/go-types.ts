/**
 * The Go types of the Engine API's request bodies, as dockerd's JSON decoder takes them: every
 * field may be absent or `null` (Go keeps the zero value), unknown fields are ignored, and a wrong
 * kind is refused. A mismatch names the Go type, which check-body.ts puts into Go's own wording.
 *
 * Written out by hand rather than with a schema library: these few kinds are all the bodies need,
 * and a library's code and schema objects would be most of what a small manager keeps in memory
 * for them (issue 34). core/test/go-types.test.ts holds these checks to what the zod schemas they
 * replace answered.
 */

/** Where a value does not decode: the path to it and its Go type's name. */
export interface GoMismatch {
  readonly path: Array<string | number>;
  readonly type: string;
}

export interface GoType {
  /** The first mismatch in `value` (depth-first, in field order), or undefined when it decodes. */
  check(value: unknown): GoMismatch | undefined;
  /**
   * `value` with every struct field under its own name, as Go's decoder reads it: a key that names
   * a field in another case (`hostconfig`, `privileged`) is that field, and a later key for the
   * same struct or map field is decoded into what an earlier one filled. Swarm judges this and
   * sends the engine this, so what was judged is what runs.
   */
  canonical(value: unknown): unknown;
}

const same = (value: unknown): unknown => value;

type Shape = Record<string, GoType>;

const mismatch = (type: string): GoMismatch => ({ path: [], type });

/** A mismatch found at `key` of the value being checked, as seen from that value. */
function under(key: string | number, found: GoMismatch): GoMismatch {
  found.path.unshift(key);
  return found;
}

/** A JSON object (not an array, not null). */
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field as Go decodes it: absent and `null` both leave the zero value. */
function field(type: GoType): GoType {
  return {
    check: (value) => (value === undefined || value === null ? undefined : type.check(value)),
    canonical: (value) => (value === undefined || value === null ? value : type.canonical(value)),
  };
}

function scalar(name: string, accepts: (value: unknown) => boolean): GoType {
  return field({ check: (value) => (accepts(value) ? undefined : mismatch(name)), canonical: same });
}

/** Go decodes a later value for a struct or map field into what an earlier one filled; anything else it replaces. */
function decodedInto(earlier: unknown, later: unknown): unknown {
  if (!isObject(earlier) || !isObject(later)) return later;
  const merged: Record<string, unknown> = { ...earlier };
  for (const [key, value] of Object.entries(later)) merged[key] = key in merged ? decodedInto(merged[key], value) : value;
  return merged;
}

/** JavaScript numbers hold integers exactly up to 2^53; a larger one in a body is refused rather than rounded. */
const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

function list(name: string, element: GoType): GoType {
  return {
    canonical: (value) => (Array.isArray(value) ? value.map((item) => element.canonical(item)) : value),
    check: (value) => {
      if (!Array.isArray(value)) return mismatch(name);
      for (let index = 0; index < value.length; index++) {
        const found = element.check(value[index]);
        if (found) return under(index, found);
      }
      return undefined;
    },
  };
}

function map(name: string, element: GoType): GoType {
  return {
    canonical: (value) => {
      if (!isObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) if (key !== '__proto__') out[key] = element.canonical(item);
      return out;
    },
    check: (value) => {
      if (!isObject(value)) return mismatch(name);
      for (const key of Object.keys(value)) {
        // A `__proto__` key is never read into the decoded object, so it is not checked either.
        if (key === '__proto__') continue;
        const found = element.check(value[key]);
        if (found) return under(key, found);
      }
      return undefined;
    },
  };
}

/**
 * A key as Go's decoder compares it with field names (bytes.EqualFold): besides ASCII case, the
 * Kelvin sign folds to k and the long s to s, so `Bindſ` is `Binds` to dockerd.
 */
const folded = (key: string): string => key.toUpperCase().toLowerCase();

function struct(name: string, shape: Shape): GoType {
  const fields = Object.entries(shape);
  const byFoldedName = new Map(fields.map(([key]) => [folded(key), key]));
  return {
    canonical: (value) => {
      if (!isObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const name = Object.hasOwn(shape, key) ? key : byFoldedName.get(folded(key));
        if (name === undefined) {
          if (key !== '__proto__') out[key] = item;
          continue;
        }
        const decoded = shape[name]!.canonical(item);
        out[name] = name in out ? decodedInto(out[name], decoded) : decoded;
      }
      return out;
    },
    check: (value) => {
      if (!isObject(value)) return mismatch(name);
      for (const [key, type] of fields) {
        const found = type.check(value[key]);
        if (found) return under(key, found);
      }
      return undefined;
    },
  };
}

const anything: GoType = { check: () => undefined, canonical: same };
const nullableString: GoType = scalar('string', (value) => typeof value === 'string');
const string: GoType = { check: (value) => (typeof value === 'string' ? undefined : mismatch('string')), canonical: same };

export const goString = nullableString;
export const goBool = scalar('bool', (value) => typeof value === 'boolean');
export const goInt = scalar('int64', isInteger);
export const goUint = scalar('uint64', (value) => isInteger(value) && value >= 0);
export const goStrings = field(list('[]string', string));
export const goStringMap = field(map('map[string]string', nullableString));
/** Docker's `map[string]struct{}` sets (ExposedPorts, Volumes): values are ignored. */
export const goSet = field(map('map[string]struct {}', anything));
/** Docker's `strslice.StrSlice`: one string or a list of them. */
export const goStrSlice = scalar(
  'strslice.StrSlice',
  (value) => typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string')),
);

export function goStruct(name: string, shape: Shape): GoType {
  return field(struct(name, shape));
}

export function goList(name: string, element: GoType): GoType {
  return field(list(name, element));
}

export function goMap(name: string, value: GoType): GoType {
  return field(map(name, value));
}

/** A request body: an object whose fields follow `shape`. */
export function goBody(name: string, shape: Shape): GoType {
  return struct(name, shape);
}
