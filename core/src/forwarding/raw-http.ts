import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';

const HIJACKED_TYPES = /^application\/vnd\.docker\.(raw|multiplexed)-stream/;

/**
 * dockerd's answer when it takes a connection over without `Upgrade` (attach, exec start): 200, a
 * stream type, and no framing (the stream runs until the connection closes). Any other answer is
 * an ordinary one, after which the connection is still HTTP.
 */
export function isHijackedAnswer(answer: IncomingMessage): boolean {
  const { headers } = answer;
  return (
    answer.statusCode === 200 &&
    HIJACKED_TYPES.test(String(headers['content-type'] ?? '')) &&
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined
  );
}

// Headers that describe one connection, not the message (RFC 9110 §7.6.1).
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Headers worth forwarding between client and engine (hop-by-hop ones dropped). */
export function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/**
 * The request line and headers for an engine, written by hand on a raw connection. `keepHops`
 * keeps Connection/Upgrade (hijacks need them); `extra` lines are appended.
 */
export function rawRequestHead(
  req: IncomingMessage,
  path: string,
  hostHeader: string,
  options: { keepHops: boolean; extra?: readonly string[] },
): string {
  const lines = [`${req.method ?? 'GET'} ${path} HTTP/1.1`];
  // From `headers`, not `rawHeaders`: what the manager removed (a forged forwarded-caller header) stays removed.
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'host' || (!options.keepHops && HOP_BY_HOP.has(name))) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  lines.push(`Host: ${hostHeader}`, ...(options.extra ?? []));
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export interface RawResponseHead {
  status: number;
  reason: string;
  /** Name and value pairs in the engine's order and spelling. */
  headers: Array<[string, string]>;
}

/** Parses `HTTP/1.1 200 OK\r\nName: value\r\n...` (without the blank line); undefined if malformed. */
export function parseResponseHead(text: string): RawResponseHead | undefined {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!match) return undefined;
  const headers: Array<[string, string]> = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return { status: Number(match[1]), reason: match[2] ?? '', headers };
}

/** A response head for the client: the engine's end-to-end headers, ours, and how the body is framed. */
export function clientResponseHead(head: RawResponseHead, ours: OutgoingHttpHeaders, framing: readonly string[]): string {
  const lines = [`HTTP/1.1 ${head.status} ${head.reason}`];
  const seen = new Set<string>();
  for (const [name, value] of head.headers) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    seen.add(lower);
    lines.push(`${name}: ${value}`);
  }
  for (const [name, value] of Object.entries(ours)) {
    if (value === undefined || seen.has(name.toLowerCase())) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(one)}`);
  }
  lines.push(...framing);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
