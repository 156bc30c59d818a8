// A small description language for the API's object shapes. One description serves three
// purposes, as the OpenAPI spec does for the real server: decoding (unknown fields dropped with a
// warning or refused under fieldValidation=Strict, wrong JSON types refused), strategic merge
// patches (merge keys and strategies), and the /openapi/v3 documents kubectl reads.

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface PatchMeta {
  /** 'merge' merges list items by mergeKey (or primitive lists as sets); 'retainKeys' clears unlisted keys; both may be combined. */
  strategy: string;
  mergeKey?: string;
}

export type Schema =
  | { kind: 'string'; enum?: readonly string[]; format?: 'byte' }
  | { kind: 'integer'; format: 'int32' | 'int64' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'quantity' }
  | { kind: 'intOrString' }
  | { kind: 'time' }
  | { kind: 'microTime' }
  | { kind: 'any' }
  | { kind: 'ref'; name: string }
  | { kind: 'array'; items: Schema; patch?: PatchMeta; listType?: 'atomic' | 'set' | 'map'; listMapKeys?: readonly string[] }
  | { kind: 'map'; values: Schema };

export interface ObjectSchema {
  name: string;
  properties: Record<string, Schema>;
  required?: readonly string[];
  gvk?: readonly GroupVersionKind[];
  /** Keys not described here are kept as they came (for parts of the API this double does not model). */
  open?: boolean;
}

const definitions = new Map<string, ObjectSchema>();

export function define(name: string, properties: Record<string, Schema>, options: Omit<ObjectSchema, 'name' | 'properties'> = {}): Schema {
  definitions.set(name, { name, properties, ...options });
  return { kind: 'ref', name };
}

export function definition(name: string): ObjectSchema {
  const found = definitions.get(name);
  if (!found) throw new Error(`k8s double: no schema named ${name}`);
  return found;
}

export const allDefinitions = (): ReadonlyMap<string, ObjectSchema> => definitions;

/** Follows a reference to the object it names, or undefined for scalar and list shapes. */
export function objectOf(schema: Schema | undefined): ObjectSchema | undefined {
  return schema?.kind === 'ref' ? definitions.get(schema.name) : undefined;
}

export const t = {
  string: { kind: 'string' } as Schema,
  bytes: { kind: 'string', format: 'byte' } as Schema,
  int32: { kind: 'integer', format: 'int32' } as Schema,
  int64: { kind: 'integer', format: 'int64' } as Schema,
  number: { kind: 'number' } as Schema,
  boolean: { kind: 'boolean' } as Schema,
  quantity: { kind: 'quantity' } as Schema,
  intOrString: { kind: 'intOrString' } as Schema,
  time: { kind: 'time' } as Schema,
  microTime: { kind: 'microTime' } as Schema,
  any: { kind: 'any' } as Schema,
  ref: (name: string): Schema => ({ kind: 'ref', name }),
  enum: (...values: string[]): Schema => ({ kind: 'string', enum: values }),
  list: (items: Schema, options: { patch?: PatchMeta; listType?: 'atomic' | 'set' | 'map'; listMapKeys?: string[] } = {}): Schema => ({
    kind: 'array',
    items,
    ...options,
  }),
  /** A list merged by key in strategic merge patches (the Go tags patchStrategy:"merge" patchMergeKey:"key"). */
  mergeList: (items: Schema, mergeKey: string, extra: { retainKeys?: boolean; listMapKeys?: string[] } = {}): Schema => ({
    kind: 'array',
    items,
    patch: { strategy: extra.retainKeys ? 'merge,retainKeys' : 'merge', mergeKey },
    listType: 'map',
    listMapKeys: extra.listMapKeys ?? [mergeKey],
  }),
  map: (values: Schema): Schema => ({ kind: 'map', values }),
  stringMap: { kind: 'map', values: { kind: 'string' } } as Schema,
  quantityMap: { kind: 'map', values: { kind: 'quantity' } } as Schema,
};
