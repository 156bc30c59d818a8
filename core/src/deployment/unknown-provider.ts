import type { ExtensionKind, SwarmError } from '@swarm/plugin-sdk';
import { kindLabel } from '../plugins/extension-kinds.js';
import type { ConfigOrigin } from '../config/layers.js';
import { CoreErrors } from '../errors.js';
import { missingOptionalBuiltin } from './optional-builtins.js';

/**
 * `scheduler.filters[2]: unknown filter "constrant"; available: health, port, ...`, or for an
 * optional built-in not installed here, the package and image that have it.
 */
export function unknownProvider(
  kind: ExtensionKind,
  name: string,
  available: readonly string[],
  origin: ConfigOrigin,
  keyPath: string,
  installedBy?: string,
): SwarmError {
  // a built-in this install (the lean image) left out: say which package or image has it
  const missing = installedBy === undefined ? missingOptionalBuiltin(kind, name) : undefined;
  return CoreErrors.unknownProvider(
    { kind: kindLabel(kind), name, available, origin, keyPath, installedBy, missing },
    { details: { kind: kindLabel(kind), name, available, keyPath, ...(installedBy ? { installedBy } : {}) } },
  );
}
