import { CoreErrors } from '../../errors.js';
import { valueAt } from '../../util/value-at.js';
import type { GoType } from './go-types.js';

/** Go's names for a JSON value's kind, with the number when it cannot fit an integer field. */
function jsonKind(value: unknown, goType: string): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return /int/.test(goType) && !Number.isInteger(value) ? `number ${value}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/**
 * Checks a decoded request body against its Engine API type and returns it with its fields under
 * their own names (`hostconfig` read as `HostConfig`, as dockerd reads it); a mismatch is refused
 * with 400 in the words of Go's decoder, naming the field's path (`HostConfig.PortBindings.80/tcp.0.HostPort`).
 */
export function checkBody<T extends Record<string, unknown>>(raw: T, type: GoType): T {
  const body = type.canonical(raw) as T;
  const found = type.check(body);
  if (!found) return body;
  throw CoreErrors.bodyFieldInvalid({
    kind: jsonKind(valueAt(body, found.path), found.type),
    field: found.path.map(String).join('.'),
    type: found.type,
  });
}
