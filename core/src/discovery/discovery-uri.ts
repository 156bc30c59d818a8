import { CoreErrors } from '../errors.js';

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
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) throw CoreErrors.discoveryUriInvalid({ uri });
  return { scheme, rest: uri.slice(separator + 3) };
}
