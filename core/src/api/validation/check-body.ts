import { CoreErrors } from '../../errors.js';
import { decodeGo, type GoType } from './go-types.js';

/**
 * A decoded request body as dockerd's decoder reads it from the client's bytes (go-types.ts): its
 * fields under their own names, repeated keys decoded in turn, what the engine ignores left out.
 * A body Go refuses is refused with 400 in the words of Go's decoder, naming the field's path
 * (`HostConfig.PortBindings.80/tcp.0.HostPort`). What this answers is what swarm judges and what
 * the engine is sent.
 */
export function checkBody<T extends Record<string, unknown>>(raw: T, type: GoType): T {
  const { value, found } = decodeGo(type, raw);
  if (!found) return value as T;
  throw CoreErrors.bodyFieldInvalid({ kind: found.kind, field: found.path.map(String).join('.'), type: found.type });
}
