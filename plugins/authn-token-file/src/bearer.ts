import type { AuthenticationRequest } from '@swarm/plugin-sdk/access';

// Go's strings.TrimSpace on the header's bytes: ASCII white space (the bytes a latin1 header
// string holds above 0x7f are not valid UTF-8 to Go, so it trims none of them).
const SURROUNDING_SPACE = /^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g;

/**
 * The bearer token of a request as kube-apiserver's `bearertoken` authenticator reads it: the
 * first `Authorization` header, trimmed, split at spaces into at most 3 parts; the scheme compared
 * without case; the second part is the token (a third part is ignored). An empty token (two spaces
 * after `Bearer`) or another scheme is no bearer token at all: `undefined`.
 */
export function bearerToken(headers: AuthenticationRequest['headers']): string | undefined {
  const raw = headers['authorization'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.replace(SURROUNDING_SPACE, '');
  if (value === undefined || value === '') return undefined;
  const space = value.indexOf(' ');
  if (space < 0 || value.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const rest = value.slice(space + 1);
  const end = rest.indexOf(' ');
  const token = end < 0 ? rest : rest.slice(0, end);
  return token === '' ? undefined : token;
}
