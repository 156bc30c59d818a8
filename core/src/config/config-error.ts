import type { SwarmError } from '@swarm/plugin-sdk';
import type { ConfigOrigin } from './layers.js';
import { CoreErrors } from '../errors.js';

/**
 * A config error worded for where the value came from: a flag gets Swarm classic's plain text,
 * a config file or object gets the key path in front (`cluster.heartbeat: ...`).
 */
export function configError(origin: ConfigOrigin, keyPath: string, text: string): SwarmError {
  return CoreErrors.configInvalid({ origin, keyPath, text }, { details: { keyPath, origin } });
}
