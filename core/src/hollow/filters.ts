import { invalidArgument } from './errors.js';

/** The engine's `filters` query value: `{"label":{"a=b":true}}` (API ≥ 1.22) or `{"label":["a=b"]}`. */
export type FilterArgs = ReadonlyMap<string, readonly string[]>;

export function parseFilters(raw: string | null): FilterArgs {
  const args = new Map<string, string[]>();
  if (raw === null || raw === '') return args;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidArgument(`invalid filter '${raw}'`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalidArgument(`invalid filter '${raw}'`);
  for (const [key, values] of Object.entries(parsed)) {
    if (Array.isArray(values)) args.set(key, values.map(String));
    else if (typeof values === 'object' && values !== null) args.set(key, Object.keys(values));
    else throw invalidArgument(`invalid filter '${key}'`);
  }
  return args;
}

/** True when `key` is absent, or one of its values satisfies `test` (the engine ORs values of a key). */
export function anyValue(args: FilterArgs, key: string, test: (value: string) => boolean): boolean {
  const values = args.get(key);
  return values === undefined || values.length === 0 || values.some(test);
}

/** `label=k` or `label=k=v` against a label map; every label filter must hold (the engine ANDs them). */
export function labelsMatch(args: FilterArgs, labels: Readonly<Record<string, string>>): boolean {
  for (const wanted of args.get('label') ?? []) {
    const eq = wanted.indexOf('=');
    const key = eq < 0 ? wanted : wanted.slice(0, eq);
    if (!(key in labels)) return false;
    if (eq >= 0 && labels[key] !== wanted.slice(eq + 1)) return false;
  }
  return true;
}
