import { z } from 'zod';

/**
 * Zod schemas for the Go types of the Engine API's request bodies, as dockerd's JSON decoder takes
 * them: every field may be absent or `null` (Go keeps the zero value), unknown fields are ignored,
 * and a wrong kind is refused. Each schema's error is the Go type's name, which check-body.ts puts
 * into Go's own wording.
 */

type Shape = Record<string, z.ZodType>;

/** A field as Go decodes it: absent and `null` both leave the zero value. */
function field<T extends z.ZodType>(schema: T) {
  return schema.nullable().optional();
}

export const goString = field(z.string({ error: 'string' }));
export const goBool = field(z.boolean({ error: 'bool' }));
export const goInt = field(z.number({ error: 'int64' }).int({ error: 'int64' }));
export const goUint = field(z.number({ error: 'uint64' }).int({ error: 'uint64' }).nonnegative({ error: 'uint64' }));
export const goStrings = field(z.array(z.string({ error: 'string' }), { error: '[]string' }));
export const goStringMap = field(z.record(z.string(), z.string({ error: 'string' }).nullable(), { error: 'map[string]string' }));
/** Docker's `map[string]struct{}` sets (ExposedPorts, Volumes): values are ignored. */
export const goSet = field(z.record(z.string(), z.unknown(), { error: 'map[string]struct {}' }));
/** Docker's `strslice.StrSlice`: one string or a list of them. */
export const goStrSlice = field(z.union([z.string(), z.array(z.string())], { error: 'strslice.StrSlice' }));

export function goStruct(name: string, shape: Shape) {
  return field(z.looseObject(shape, { error: name }));
}

export function goList(name: string, element: z.ZodType) {
  return field(z.array(element, { error: name }));
}

export function goMap(name: string, value: z.ZodType) {
  return field(z.record(z.string(), value, { error: name }));
}

/** A request body: an object whose fields follow `shape`. */
export function goBody(name: string, shape: Shape) {
  return z.looseObject(shape, { error: name });
}
