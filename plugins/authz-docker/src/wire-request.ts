import { X509Certificate } from 'node:crypto';
import { ANONYMOUS_USER, type AccessRequest, type PeerCertificate } from '@swarm/plugin-sdk/access';
import { DockerAuthzErrors } from './errors.js';

/*
 * The `authorization.Request` dockerd sends its plugins (moby pkg/authorization api.go and
 * authz.go, v20.10), field for field: names, order, omitempty, and Go's encodings ([]byte as
 * base64, each peer certificate as the base64 of its PEM text, headers as a string map).
 */

/** moby's maxBodySize: a JSON request body larger than this is refused, not sent without its body. */
export const MAX_BODY_SIZE = 1_048_576;

/** The JSON fields of authorization.Request, in Go's order; absent ones are omitted (omitempty). */
export interface AuthZRequest {
  User?: string;
  UserAuthNMethod?: string;
  RequestMethod?: string;
  RequestUri?: string;
  RequestBody?: string;
  RequestHeaders?: Record<string, string>;
  RequestPeerCertificates?: string[];
  ResponseStatusCode?: number;
  ResponseBody?: string;
  ResponseHeaders?: Record<string, string>;
}

/** Headers dockerd keeps from its plugins: they carry credentials. */
const SECRET_HEADERS = new Set(['authorization', 'x-registry-config', 'x-registry-auth']);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Go's textproto.CanonicalMIMEHeaderKey: `content-type` is `Content-Type`. */
export function canonicalHeaderName(name: string): string {
  if (!TOKEN.test(name)) return name;
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

/**
 * Go's `headers()`: one value per name, the last one when a name repeats, credentials left out.
 * Node.js joins most repeated headers with ", " before we see them; arrays (set-cookie) give their last.
 */
export function flattenHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  drop: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const entries: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || SECRET_HEADERS.has(lower) || drop.has(lower)) continue;
    const last = typeof value === 'string' ? value : value[value.length - 1];
    if (last !== undefined) entries.push([canonicalHeaderName(name), last]);
  }
  // encoding/json writes map keys sorted
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

/** The first value of a header, as Go's Header.Get. */
export function headerValue(headers: Readonly<Record<string, string | readonly string[] | undefined>>, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return typeof value === 'string' ? value : value?.[0];
}

/** moby's isAuthEndpoint: a path (version prefix optional) that starts with `/auth` carries registry passwords. */
const AUTH_ENDPOINT = /^[^/]*\/(v\d[\d.]*\/)?auth/;

/**
 * The path Go's url.Parse reads from a request URI: no query or fragment, no scheme and host,
 * percent-escapes decoded. A URI Go could not parse never reached a plugin (Go's server refuses
 * it), so one is read as it stands rather than given a meaning that would hold a body back.
 */
function uriPath(uri: string): string {
  const path = uri.replace(/[?#].*$/s, '').replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/, '');
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Go's `sendBody` (moby since the CVE-2024-41110 fixes, which Debian's 20.10 carries): no body for
 * the `/auth` endpoint (it carries registry passwords; the query does not count), and only for a
 * Content-Type whose media type is `application/json` (parameters allowed; not `text/*`).
 */
export function sendBody(uri: string, contentType: string | undefined): boolean {
  if (AUTH_ENDPOINT.test(uriPath(uri))) return false;
  if (contentType === undefined) return false;
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json';
}

/** The PEM text Go's PeerCertificate.MarshalJSON makes, base64-encoded as JSON encodes []byte. */
export function encodePeerCertificate(certificate: PeerCertificate): string {
  const der = Buffer.from(certificate.raw).toString('base64');
  const lines = der.match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}

function selfIssued(certificate: PeerCertificate): boolean {
  try {
    const parsed = new X509Certificate(certificate.raw);
    return parsed.checkIssued(parsed);
  } catch {
    return false;
  }
}

/**
 * The chain as the client presented it, which is what dockerd sends (Go's
 * `tls.ConnectionState.PeerCertificates`). The host gives the verified chain, which Node.js ends
 * with the trust anchor from the CA file; clients do not send their root, so a self-issued last
 * certificate is left out.
 */
export function presentedChain(chain: readonly PeerCertificate[]): readonly PeerCertificate[] {
  return chain.length > 1 && selfIssued(chain[chain.length - 1]!) ? chain.slice(0, -1) : chain;
}

/** Go headers are dropped from what the handler sees: Host and Transfer-Encoding live in other fields. */
const TRANSPORT_REQUEST_HEADERS = new Set(['host', 'transfer-encoding']);

/**
 * The request part, as the AuthZ middleware builds it before the handler. The body goes along
 * when dockerd sends it: JSON by its Content-Type (the host hands over such a body whatever its
 * framing, chunked included, as moby reads it since CVE-2024-41110), not for `/auth`. A JSON body
 * over MAX_BODY_SIZE is refused as current moby refuses it (dockerd 20.10 let it through
 * unseen by the plugin: the same bypass as a chunked body), whether the host read it or only
 * announced its length (an upgraded request's).
 */
export function buildAuthZRequest(request: AccessRequest): AuthZRequest {
  const { caller, wire } = request;
  const out: AuthZRequest = {};
  const user = caller.user === ANONYMOUS_USER ? '' : caller.user;
  if (user !== '') out.User = user;
  if (caller.method !== '') out.UserAuthNMethod = caller.method;
  if (wire.method !== '') out.RequestMethod = wire.method;
  if (wire.uri !== '') out.RequestUri = wire.uri;
  if (sendBody(wire.uri, headerValue(wire.headers, 'content-type'))) {
    const size = wire.body?.length ?? Number(headerValue(wire.headers, 'content-length') ?? 0);
    if (size > MAX_BODY_SIZE) throw DockerAuthzErrors.bodyTooLarge({ limit: MAX_BODY_SIZE });
    if (wire.body !== undefined && wire.body.length > 0) out.RequestBody = Buffer.from(wire.body).toString('base64');
  }
  const headers = flattenHeaders(wire.headers, TRANSPORT_REQUEST_HEADERS);
  if (Object.keys(headers).length > 0) out.RequestHeaders = headers;
  const presented = presentedChain(wire.peerCertificates);
  if (presented.length > 0) out.RequestPeerCertificates = presented.map(encodePeerCertificate);
  return out;
}
