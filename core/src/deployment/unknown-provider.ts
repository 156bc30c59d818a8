import { ErrorCodes, SwarmError, type ExtensionKind } from '@swarm/plugin-sdk';
import { kindLabel } from '../plugins/extension-kinds.js';
import type { ConfigOrigin } from '../config/layers.js';

/** `scheduler.filters[2]: unknown filter "constrant"; available: health, port, ...` */
export function unknownProvider(
  kind: ExtensionKind,
  name: string,
  available: readonly string[],
  origin: ConfigOrigin,
  keyPath: string,
): SwarmError {
  const text = `unknown ${kindLabel(kind)} "${name}"; available: ${available.join(', ') || '(none)'}`;
  const message = origin === 'flags' || origin === 'defaults' ? text : `${keyPath}: ${text}`;
  return new SwarmError(ErrorCodes.UNKNOWN_PROVIDER, message, { details: { kind: kindLabel(kind), name, available, keyPath } });
}
