import { CoreErrors } from '../errors.js';

// The collector lives in util/ since the run options explain/ reads use it too.
export { collect } from '../util/collect.js';

/** `--cluster-opt a=b --cluster-opt c=d` → { a: 'b', c: 'd' }, with Swarm classic's error text. */
export function keyValues(flag: string, values: readonly string[] | undefined): Record<string, string> | undefined {
  if (!values || values.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const value of values) {
    const index = value.indexOf('=');
    if (index === -1) throw CoreErrors.cliKeyValueFlag({ flag });
    out[value.slice(0, index)] = value.slice(index + 1);
  }
  return out;
}

/** Swarm classic reads comma-separated lists from environment variables. */
export function splitList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((item) => item.split(',')).filter((item) => item !== '');
}
