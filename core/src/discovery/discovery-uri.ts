import { ErrorCodes, SwarmError } from '@swarm/plugin-sdk';

export interface DiscoveryUri {
  readonly scheme: string;
  /** Everything after `scheme://`. */
  readonly rest: string;
}

/** `zk://h1,h2/prefix` → zk + `h1,h2/prefix`; a bare `h1:p,h2:p` means `nodes://h1:p,h2:p`. */
export function parseDiscoveryUri(uri: string): DiscoveryUri {
  const separator = uri.indexOf('://');
  if (separator === -1) return { scheme: 'nodes', rest: uri };
  const scheme = uri.slice(0, separator);
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) throw new SwarmError(ErrorCodes.DISCOVERY_INVALID, `invalid discovery URI "${uri}"`);
  return { scheme, rest: uri.slice(separator + 3) };
}
