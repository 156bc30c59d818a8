import { CoreErrors } from '../errors.js';

/** Docker's `filters` query parameter: `{"key":{"value":true}}` or the older `{"key":["value"]}`. */
export type DockerFilters = ReadonlyMap<string, readonly string[]>;

export function parseFilters(raw: string | null): DockerFilters {
  const filters = new Map<string, string[]>();
  if (raw === null || raw === '') return filters;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw CoreErrors.invalidFilterJson({ reason: (error as Error).message });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw CoreErrors.invalidFilterJson({ reason: raw });
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (Array.isArray(value)) filters.set(key, value.map(String));
    else if (typeof value === 'object' && value !== null) {
      filters.set(
        key,
        Object.entries(value as Record<string, unknown>)
          .filter(([, on]) => on === true)
          .map(([name]) => name),
      );
    } else throw CoreErrors.invalidFilterValue({ key, value: JSON.stringify(value) });
  }
  return filters;
}

/** Throws Docker's 400 for a filter key the endpoint does not know. */
export function checkFilterKeys(filters: DockerFilters, allowed: readonly string[]): void {
  for (const key of filters.keys()) {
    if (!allowed.includes(key)) throw CoreErrors.unknownFilter({ filter: key });
  }
}

/** No values for the key, or one of them equals (or, as a regular expression, matches) the candidate. */
export function matchesAny(filters: DockerFilters, key: string, candidates: readonly string[], asPattern = false): boolean {
  const values = filters.get(key);
  if (!values || values.length === 0) return true;
  return values.some((value) =>
    candidates.some((candidate) => {
      if (candidate === value) return true;
      if (!asPattern) return false;
      try {
        return new RegExp(value).test(candidate);
      } catch {
        return false;
      }
    }),
  );
}

/** `label=key` or `label=key=value` filters: every one must hold. */
export function matchesLabels(filters: DockerFilters, labels: Readonly<Record<string, string>> | null | undefined): boolean {
  const values = filters.get('label');
  if (!values || values.length === 0) return true;
  const present = labels ?? {};
  return values.every((expression) => {
    const eq = expression.indexOf('=');
    if (eq < 0) return Object.hasOwn(present, expression);
    return present[expression.slice(0, eq)] === expression.slice(eq + 1);
  });
}
