/** Compares the shapes of two JSON answers: the same keys and the same value types, recursively. */
export type JsonKind = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean';

export function kindOf(value: unknown): JsonKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  const kind = typeof value;
  if (kind === 'string' || kind === 'number' || kind === 'boolean') return kind;
  return 'object';
}

const OBJECT_ID = /^[0-9a-f]{64}$/;

/** Maps keyed by object IDs (a network's `Containers`) compare as one `<id>` entry. */
function keyedById(object: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(object);
  if (keys.length === 0 || !keys.every((key) => OBJECT_ID.test(key))) return object;
  return { '<id>': object[keys[0] as string] };
}

/**
 * Every place where `actual` differs in shape from `expected`, as `path: reason` lines (empty when
 * they match). Arrays compare their first elements when both have one.
 */
export function shapeDifferences(expected: unknown, actual: unknown, path = '$'): string[] {
  const expectedKind = kindOf(expected);
  const actualKind = kindOf(actual);
  if (expectedKind !== actualKind) return [`${path}: expected ${expectedKind}, got ${actualKind}`];
  if (expectedKind === 'array') {
    const [first] = expected as unknown[];
    const [other] = actual as unknown[];
    return first !== undefined && other !== undefined ? shapeDifferences(first, other, `${path}[0]`) : [];
  }
  if (expectedKind !== 'object') return [];
  const left = keyedById(expected as Record<string, unknown>);
  const right = keyedById(actual as Record<string, unknown>);
  const differences: string[] = [];
  for (const key of Object.keys(left)) {
    if (!(key in right)) differences.push(`${path}.${key}: missing`);
    else differences.push(...shapeDifferences(left[key], right[key], `${path}.${key}`));
  }
  for (const key of Object.keys(right)) if (!(key in left)) differences.push(`${path}.${key}: unexpected`);
  return differences;
}
