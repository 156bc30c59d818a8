// The three patch types the API server takes: JSON Patch (RFC 6902), JSON Merge Patch
// (RFC 7386) and strategic merge patch (lists merged by the merge keys of the type's schema,
// with the $patch, $retainKeys, $setElementOrder and $deleteFromPrimitiveList directives).
import type { Json, JsonObject } from '../model/decode.js';
import { definition, objectOf, type Schema } from '../model/schema.js';

export class PatchError extends Error {
  constructor(
    message: string,
    /** 400 for a malformed patch, 422 when a well-formed patch cannot be applied. */
    readonly code: 400 | 422 = 422,
  ) {
    super(message);
  }
}

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const clone = <T extends Json>(value: T): T => structuredClone(value);

export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`add operation does not apply: doc is missing path: "${path}": missing value`);
  return path
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(document: Json, parts: string[], path: string): { parent: JsonObject | Json[]; last: string } {
  let node: Json = document;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(node) ? node[Number(part)] : isObject(node) ? node[part] : undefined;
    if (next === undefined || next === null || typeof next !== 'object')
      throw new PatchError(`doc is missing path: "${path}": missing value`);
    node = next;
  }
  if (node === null || typeof node !== 'object') throw new PatchError(`doc is missing path: "${path}": missing value`);
  return { parent: node, last: parts[parts.length - 1]! };
}

function getAt(document: Json, path: string): Json {
  let node: Json | undefined = document;
  for (const part of pointer(path)) {
    node = Array.isArray(node) ? node[Number(part)] : isObject(node) ? node[part] : undefined;
    if (node === undefined) throw new PatchError(`doc is missing path: "${path}": missing value`);
  }
  return node;
}

function addAt(document: Json, path: string, value: Json, replace: boolean): Json {
  const parts = pointer(path);
  if (parts.length === 0) return clone(value);
  const { parent, last } = parentOf(document, parts, path);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length - (replace ? 1 : 0)) {
      throw new PatchError(`${replace ? 'replace' : 'add'} operation does not apply: doc is missing path: "${path}": missing value`);
    }
    if (replace) parent[index] = clone(value);
    else parent.splice(index, 0, clone(value));
  } else {
    if (replace && !(last in parent)) throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    parent[last] = clone(value);
  }
  return document;
}

function removeAt(document: Json, path: string): Json {
  const parts = pointer(path);
  const { parent, last } = parentOf(document, parts, path);
  if (Array.isArray(parent)) {
    const index = Number(last);
    if (!Number.isInteger(index) || index < 0 || index >= parent.length)
      throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": missing value`);
    parent.splice(index, 1);
  } else {
    if (!(last in parent)) throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": missing value`);
    delete parent[last];
  }
  return document;
}

export function jsonPatch(target: Json, operations: Json): Json {
  if (!Array.isArray(operations)) throw new PatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch', 400);
  let document = clone(target);
  for (const operation of operations) {
    if (!isObject(operation) || typeof operation.op !== 'string' || typeof operation.path !== 'string') {
      throw new PatchError('Unexpected kind: ' + JSON.stringify(operation), 400);
    }
    const { op, path } = operation as { op: string; path: string };
    const from = operation.from as string | undefined;
    switch (op) {
      case 'add':
        document = addAt(document, path, operation.value ?? null, false);
        break;
      case 'replace':
        document = addAt(document, path, operation.value ?? null, true);
        break;
      case 'remove':
        document = removeAt(document, path);
        break;
      case 'move': {
        const value = getAt(document, from ?? '');
        document = addAt(removeAt(document, from ?? ''), path, value, false);
        break;
      }
      case 'copy':
        document = addAt(document, path, getAt(document, from ?? ''), false);
        break;
      case 'test':
        if (JSON.stringify(getAt(document, path)) !== JSON.stringify(operation.value ?? null)) {
          throw new PatchError(`testing value ${path} failed: test failed`);
        }
        break;
      default:
        throw new PatchError(`Unexpected kind: ${op}`, 400);
    }
  }
  return document;
}

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const ORDER_PREFIX = '$setElementOrder/';
const DELETE_PRIMITIVE_PREFIX = '$deleteFromPrimitiveList/';

function fieldSchema(objectSchema: Schema | undefined, key: string): Schema | undefined {
  const object = objectOf(objectSchema);
  if (!object) return undefined;
  return definition(object.name).properties[key];
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined): JsonObject | undefined {
  const directive = patch[DIRECTIVE];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const replaced = { ...patch };
    delete replaced[DIRECTIVE];
    return replaced;
  }
  const out: JsonObject = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(ORDER_PREFIX)) continue;
    if (key.startsWith(DELETE_PRIMITIVE_PREFIX)) {
      const field = key.slice(DELETE_PRIMITIVE_PREFIX.length);
      const remove = new Set((value as Json[]).map((v) => JSON.stringify(v)));
      if (Array.isArray(out[field])) out[field] = (out[field] as Json[]).filter((v) => !remove.has(JSON.stringify(v)));
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const child = fieldSchema(schema, key);
    const current = out[key];
    if (isObject(value) && child?.kind === 'map') {
      const merged: JsonObject = isObject(current) ? { ...current } : {};
      for (const [mapKey, mapValue] of Object.entries(value)) {
        if (mapValue === null) delete merged[mapKey];
        else
          merged[mapKey] =
            isObject(mapValue) && isObject(merged[mapKey])
              ? (mergeMap(merged[mapKey] as JsonObject, mapValue, child.values) ?? {})
              : mapValue;
      }
      out[key] = merged;
    } else if (isObject(value) && (child?.kind === 'ref' || child?.kind === 'any' || child === undefined)) {
      const merged = mergeMap(isObject(current) ? current : {}, value, child?.kind === 'ref' ? child : undefined);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else if (Array.isArray(value) && child?.kind === 'array' && child.patch?.strategy.includes('merge')) {
      const order = patch[`${ORDER_PREFIX}${key}`];
      out[key] = mergeList(Array.isArray(current) ? current : [], value, child, Array.isArray(order) ? order : undefined);
    } else {
      out[key] = stripDirectives(value);
    }
  }
  const retain = patch[RETAIN_KEYS];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(out)) if (!retain.includes(key) && !(key in patch)) delete out[key];
  }
  return out;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.filter((item) => !(isObject(item) && item[DIRECTIVE])).map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(ORDER_PREFIX) || key.startsWith(DELETE_PRIMITIVE_PREFIX)) continue;
    out[key] = stripDirectives(item);
  }
  return out;
}

function mergeList(original: Json[], patch: Json[], schema: Extract<Schema, { kind: 'array' }>, order: Json[] | undefined): Json[] {
  if (patch.some((item) => isObject(item) && item[DIRECTIVE] === 'replace')) {
    return patch.filter((item) => !(isObject(item) && item[DIRECTIVE] === 'replace')).map(stripDirectives);
  }
  const mergeKey = schema.patch?.mergeKey;
  let result: Json[];
  if (!mergeKey) {
    const seen = new Set(original.map((item) => JSON.stringify(item)));
    result = [...original, ...patch.filter((item) => !seen.has(JSON.stringify(item)))];
  } else {
    result = original.map((item) => item);
    for (const item of patch) {
      if (!isObject(item)) continue;
      const index = result.findIndex((existing) => isObject(existing) && existing[mergeKey] === item[mergeKey]);
      if (item[DIRECTIVE] === 'delete') {
        if (index >= 0) result.splice(index, 1);
        continue;
      }
      if (index >= 0) {
        const merged = mergeMap(result[index] as JsonObject, item, schema.items);
        if (merged === undefined) result.splice(index, 1);
        else result[index] = merged;
      } else {
        result.push(stripDirectives(item));
      }
    }
  }
  if (order) {
    const position = (item: Json) => {
      const key = mergeKey && isObject(item) ? item[mergeKey] : item;
      const found = order.findIndex(
        (entry) => JSON.stringify(mergeKey && isObject(entry) ? entry[mergeKey] : entry) === JSON.stringify(key),
      );
      return found < 0 ? order.length : found;
    };
    result = result
      .map((item, index) => ({ item, index }))
      .sort((a, b) => position(a.item) - position(b.item) || a.index - b.index)
      .map((entry) => entry.item);
  }
  return result;
}

/** Applies a strategic merge patch to an object of the named type. */
export function strategicMergePatch(target: JsonObject, patch: Json, typeName: string): JsonObject {
  if (!isObject(patch)) throw new PatchError('json: cannot unmarshal array into Go value of type map[string]interface {}', 400);
  return mergeMap(target, patch, { kind: 'ref', name: typeName }) ?? {};
}
