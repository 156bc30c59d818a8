import type { WireResponse } from '@swarm/plugin-sdk/access';
import { flattenHeaders, headerValue, sendBody, type AuthZRequest } from './wire-request.js';

/*
 * The response part of what dockerd v20.10 sends in AuthZPlugin.AuthZRes. dockerd reads it from
 * its ResponseModifier (moby pkg/authorization response.go, middleware.go), which sees less than
 * the client does, and these rules reproduce that from the answer the client got:
 *
 * - A handler that fails returns its error past the modifier; the router writes it after AuthZRes.
 *   So for an error answer (3xx-5xx: dockerd's 304 is an error too) the plugin gets no status, no
 *   body, and only the headers the version and experimental middlewares set; and its verdict
 *   cannot change the answer (dockerd returns the handler's error, not the plugin's).
 * - The modifier buffers 64 KiB; a larger JSON answer (one write) is flushed before AuthZRes,
 *   which clears the status and headers, so the plugin gets neither, nor the body (its content type
 *   went with the headers).
 * - A streamed answer (`logs`, `wait`, `events`, a pull's progress) flushes as it goes, so it too
 *   comes with neither status, headers nor body. The host holds an answer whole or not at all: an
 *   answer without a body is one it let stream out.
 * - `/_ping` writes without a status (status omitted); its GET's Content-Type is sniffed by Go when
 *   written, so the plugin does not see it.
 * - Headers Go's server adds while writing (Content-Length, Date, ...) are never in the modifier.
 * - A 204 is written with WriteHeader and nothing after it: never streamed, so its status and
 *   headers are there even when the host let its empty answer through without holding it (`stop`).
 * - Some handlers return without writing a status (`cp`'s HEAD and PUT of an archive, resize): Go's
 *   server writes the 200, the modifier never saw one, so the plugin gets the headers only.
 */

/** dockerd's maxBufferSize of the response modifier. */
export const MAX_BUFFER_SIZE = 65_536;

/** Set by dockerd's middlewares before the handler runs, so present even when it fails. */
const MIDDLEWARE_HEADERS = new Set(['api-version', 'docker-experimental', 'ostype', 'server']);
const EVERYTHING_BUT_MIDDLEWARE = (name: string) => !MIDDLEWARE_HEADERS.has(name.toLowerCase());

/** Written by Go's server (or the connection), not by dockerd's handlers. */
const SERVER_HEADERS = new Set(['content-length', 'date', 'transfer-encoding', 'connection', 'keep-alive']);

const PING = /^(\/v[0-9.]+)?\/_ping(\?|$)/;

/** Routes whose dockerd handler writes no status (and no body): method and URI. */
const WITHOUT_STATUS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^(HEAD|PUT)$/, /^(\/v[0-9.]+)?\/containers\/.+\/archive(\?|$)/],
  [/^POST$/, /^(\/v[0-9.]+)?\/(containers|exec)\/.+\/resize(\?|$)/],
];

const writesNoStatus = (method: string, uri: string) => WITHOUT_STATUS.some(([methods, path]) => methods.test(method) && path.test(uri));

export interface ResponseFields {
  readonly fields: Pick<AuthZRequest, 'ResponseStatusCode' | 'ResponseBody' | 'ResponseHeaders'>;
  /** dockerd ignores the plugin's verdict (and failure) on this answer: the handler's error wins. */
  readonly verdictIgnored: boolean;
}

function headersWithout(response: WireResponse, drop: (name: string) => boolean): Record<string, string> {
  const names = Object.keys(response.headers)
    .filter(drop)
    .map((name) => name.toLowerCase());
  return flattenHeaders(response.headers, new Set(names));
}

function withHeaders(fields: ResponseFields['fields'], headers: Record<string, string>): ResponseFields['fields'] {
  return Object.keys(headers).length > 0 ? { ...fields, ResponseHeaders: headers } : fields;
}

/** The Response* fields dockerd would send for this answer to `method uri`. */
export function responseFields(method: string, uri: string, response: WireResponse): ResponseFields {
  if (response.statusCode >= 300) {
    return { fields: withHeaders({}, headersWithout(response, EVERYTHING_BUT_MIDDLEWARE)), verdictIgnored: true };
  }
  if (PING.test(uri)) {
    // HEAD /_ping sets its Content-Type and Content-Length itself
    const written =
      method === 'HEAD' ? new Set(['date', 'transfer-encoding', 'connection', 'keep-alive']) : new Set([...SERVER_HEADERS, 'content-type']);
    return {
      fields: withHeaders(
        {},
        headersWithout(response, (name) => written.has(name.toLowerCase())),
      ),
      verdictIgnored: false,
    };
  }
  const ownHeaders = () => headersWithout(response, (name) => SERVER_HEADERS.has(name.toLowerCase()));
  if (writesNoStatus(method, uri)) return { fields: withHeaders({}, ownHeaders()), verdictIgnored: false };
  if (response.statusCode === 204) return { fields: withHeaders({ ResponseStatusCode: 204 }, ownHeaders()), verdictIgnored: false };
  // no body: the host let the answer stream out (a flushed head, or past 1 MiB), as dockerd flushed it
  if (response.body === undefined || response.body.length > MAX_BUFFER_SIZE) return { fields: {}, verdictIgnored: false };
  const fields: ResponseFields['fields'] = { ResponseStatusCode: response.statusCode };
  const body = response.body;
  const withBody =
    body.length > 0 && sendBody(uri, headerValue(response.headers, 'content-type'))
      ? { ...fields, ResponseBody: Buffer.from(body).toString('base64') }
      : fields;
  return { fields: withHeaders(withBody, ownHeaders()), verdictIgnored: false };
}
