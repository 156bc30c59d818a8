import { connect, type Socket } from 'node:net';

/** Where a raw request goes: the manager (127.0.0.1:port) or an engine (127.0.0.N:2375). */
export interface Address {
  host: string;
  port: number;
}

/** An answer as read off the wire: status, headers (lower-case names) and body text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the first HTTP/1.1 answer in `text` (Content-Length or chunked, else up to the end). */
export function parseAnswer(text: string): RawAnswer | undefined {
  const split = text.indexOf('\r\n\r\n');
  if (split === -1) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    let rest = body;
    for (;;) {
      const end = rest.indexOf('\r\n');
      if (end === -1) break;
      const size = Number.parseInt(rest.slice(0, end), 16);
      if (!(size > 0)) break;
      decoded += rest.slice(end + 2, end + 2 + size);
      rest = rest.slice(end + 2 + size + 2);
    }
    body = decoded;
  } else if (headers['content-length'] !== undefined) {
    body = body.slice(0, Number(headers['content-length']));
  }
  return { status, headers, body };
}

/**
 * Sends `request` exactly as written (no client-side path cleaning) on a new connection and reads
 * until the server closes, or until a whole answer arrived when it keeps the connection open.
 */
export function rawRequest(to: Address, request: string | Buffer, timeoutMs = 15_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(to.port, to.host);
    let text = '';
    const finish = () => {
      socket.destroy();
      const answer = parseAnswer(text);
      if (answer) resolve(answer);
      else reject(new Error(`no HTTP answer; got ${JSON.stringify(text.slice(0, 200))}`));
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const answer = parseAnswer(text);
      const length = answer?.headers['content-length'];
      if (answer && length !== undefined && Buffer.byteLength(answer.body, 'latin1') >= Number(length)) finish();
    });
    socket.on('end', finish);
    socket.on('error', (error) => (text ? finish() : reject(error)));
    socket.setTimeout(timeoutMs, finish);
    socket.write(request);
  });
}

/** A request line and headers for `rawRequest`, with a body when given. */
export function requestText(method: string, target: string, body?: string, headers: Record<string, string> = {}): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: swarm', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** Opens a connection, writes `head`, and hands the socket over (for hang-up tests). */
export function openWith(to: Address, head: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(to.port, to.host, () => {
      socket.write(head);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** Resolves with the first bytes the server sends on `socket` (or '' when it closes first). */
export function firstBytes(socket: Socket, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(''), timeoutMs);
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(chunk.toString('latin1'));
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve('');
    });
  });
}
