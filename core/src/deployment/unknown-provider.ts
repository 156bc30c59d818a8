import type { ExtensionKind, SwarmError } from '@swarm/plugin-sdk';
import { kindLabel } from '../plugins/extension-kinds.js';
import type { ConfigOrigin } from '../config/layers.js';
import { CoreErrors } from '../errors.js';

/** `scheduler.filters[2]: unknown filter "constrant"; available: health, port, ...` */
export function unknownProvider(
  kind: ExtensionKind,
  name: string,
  available: readonly string[],
  origin: ConfigOrigin,
  keyPath: string,
  installedBy?: string,
): SwarmError {
  return CoreErrors.unknownProvider(
    { kind: kindLabel(kind), name, available, origin, keyPath, installedBy },
    { details: { kind: kindLabel(kind), name, available, keyPath, ...(installedBy ? { installedBy } : {}) } },
  );
}
