import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';

/*
 * A proxy in front of one engine that records every HTTP request the engine receives, as the
 * engine's own parser would see them: request line and headers, bodies skipped by Content-Length
 * or chunked framing, requests pipelined on one connection each counted. A connection that
 * switched protocols (101, or dockerd's 200 raw stream for attach and exec start) carries stream
 * bytes from then on, not requests: the proxy holds its parsing of what follows such a request
 * until the engine's answer says which it is, as dockerd itself reads the next request only after
 * it answered the one before.
 */

export interface RecordedRequest {
  /** Which proxy (engine) saw it. */
  readonly engine: string;
  /** The proxied connection it came on, and its place there (0 first). */
  readonly connection: number;
  readonly order: number;
  readonly at: number;
  readonly method: string;
  /** The request target as written (path and query). */
  readonly target: string;
  /** Header names in lower case; repeated ones joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
}

export interface RecordingProxy {
  /** host:port to give the manager instead of the engine's. */
  readonly addr: string;
  readonly requests: readonly RecordedRequest[];
  stop(): Promise<void>;
}

export interface RecordingProxyOptions {
  readonly label: string;
  readonly listen: { readonly host: string; readonly port: number };
  readonly engine: { readonly host: string; readonly port: number };
  /** A folder with ca.pem, server-cert.pem and server-key.pem: TLS on both sides (the proxy shows the server certificate and presents it to the engine). */
  readonly tlsDir?: string;
  /** The certificate and key files presented to the engine instead of the server certificate (one made for client authentication). */
  readonly identity?: { readonly cert: string; readonly key: string };
}

interface Head {
  readonly startLine: string;
  readonly headers: Record<string, string>;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const HIJACKED_TYPES = /^application\/vnd\.docker\.(raw|multiplexed)-stream/;
const MAX_HEAD = 1024 * 1024;

function parseHead(text: string): Head {
  const [startLine = '', ...lines] = text.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { startLine, headers };
}

/** A message body's framing, skipped byte by byte as it passes. */
type Body =
  | { kind: 'length'; remaining: number }
  | { kind: 'chunked'; state: 'size' | 'data' | 'data-end' | 'trailer'; line: string; remaining: number };

function framingOf(head: Head): Body | undefined {
  const encoding = head.headers['transfer-encoding'];
  if (encoding !== undefined && /chunked\s*$/i.test(encoding)) return { kind: 'chunked', state: 'size', line: '', remaining: 0 };
  const length = Number(head.headers['content-length'] ?? '0');
  return length > 0 ? { kind: 'length', remaining: length } : undefined;
}

/** Skips body bytes from `offset`; returns where the body ended, or -1 if it goes on past the buffer. */
function skipBody(body: Body, data: Buffer, from: number): number {
  let offset = from;
  if (body.kind === 'length') {
    const taken = Math.min(body.remaining, data.length - offset);
    body.remaining -= taken;
    return body.remaining === 0 ? offset + taken : -1;
  }
  while (offset < data.length) {
    switch (body.state) {
      case 'size': {
        const byte = data[offset++]!;
        if (byte !== 0x0a) {
          if (byte !== 0x0d) body.line += String.fromCharCode(byte);
          break;
        }
        const size = Number.parseInt(body.line.split(';')[0]!.trim() || '0', 16);
        body.line = '';
        if (size === 0) body.state = 'trailer';
        else {
          body.state = 'data';
          body.remaining = size;
        }
        break;
      }
      case 'data': {
        const taken = Math.min(body.remaining, data.length - offset);
        offset += taken;
        body.remaining -= taken;
        if (body.remaining === 0) {
          body.state = 'data-end';
          body.remaining = 2;
        }
        break;
      }
      case 'data-end':
        offset += 1;
        body.remaining -= 1;
        if (body.remaining === 0) body.state = 'size';
        break;
      case 'trailer': {
        const byte = data[offset++]!;
        if (byte === 0x0a) {
          if (body.line === '') return offset;
          body.line = '';
        } else if (byte !== 0x0d) body.line += String.fromCharCode(byte);
        break;
      }
    }
  }
  return -1;
}

/**
 * One direction of one connection, parsed message by message. `onHead` says what follows a head:
 * its body framing, and whether parsing stops after it until `release` (a request that may switch
 * protocols) or for good (a body that runs until the connection closes, a switched stream).
 */
class MessageReader {
  private buffer = Buffer.alloc(0);
  private body: Body | undefined;
  private state: 'head' | 'body' | 'held' | 'raw' = 'head';
  private holdAfterBody = false;

  constructor(private readonly onHead: (head: Head) => { body: Body | undefined; then: 'next' | 'hold' | 'raw' }) {}

  push(chunk: Buffer): void {
    if (this.state === 'raw') return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    this.drain();
  }

  /** After a held request's answer: parse on (`switched` false) or treat the rest as stream bytes. */
  release(switched: boolean): void {
    if (this.state !== 'held') return;
    if (switched) {
      this.state = 'raw';
      this.buffer = Buffer.alloc(0);
      return;
    }
    this.state = 'head';
    this.drain();
  }

  private drain(): void {
    for (;;) {
      if (this.state === 'head') {
        // blank lines between messages are allowed (RFC 9112 §2.2)
        while (this.buffer.length >= 2 && this.buffer[0] === 0x0d && this.buffer[1] === 0x0a) this.buffer = this.buffer.subarray(2);
        const end = this.buffer.indexOf(CRLF2);
        if (end < 0) {
          if (this.buffer.length > MAX_HEAD) this.state = 'raw';
          return;
        }
        const head = parseHead(this.buffer.subarray(0, end).toString('latin1'));
        this.buffer = this.buffer.subarray(end + 4);
        const next = this.onHead(head);
        if (next.then === 'raw') {
          this.state = 'raw';
          this.buffer = Buffer.alloc(0);
          return;
        }
        this.body = next.body;
        this.holdAfterBody = next.then === 'hold';
        this.state = 'body';
      }
      if (this.state === 'body') {
        if (this.body) {
          const end = skipBody(this.body, this.buffer, 0);
          if (end < 0) {
            this.buffer = Buffer.alloc(0);
            return;
          }
          this.buffer = this.buffer.subarray(end);
          this.body = undefined;
        }
        this.state = this.holdAfterBody ? 'held' : 'head';
      }
      if (this.state === 'held' || this.state === 'raw') return;
    }
  }
}

const MAYBE_HIJACKED = /\/(containers\/[^/]+\/attach|exec\/[^/]+\/start)$/;

/** Parses both directions of one proxied connection and records its requests. */
function watchConnection(record: (method: string, target: string, headers: Record<string, string>) => void) {
  const pending: Array<{ method: string; mayHijack: boolean }> = [];
  const requests: MessageReader = new MessageReader((head) => {
    const [method = '', target = ''] = head.startLine.split(' ');
    record(method, target, head.headers);
    const path = target.split('?')[0] ?? '';
    const mayHijack = head.headers.upgrade !== undefined || (method === 'POST' && MAYBE_HIJACKED.test(path));
    pending.push({ method, mayHijack });
    return { body: framingOf(head), then: mayHijack ? 'hold' : 'next' };
  });
  const answers = new MessageReader((head) => {
    const status = Number(head.startLine.split(' ')[1] ?? '0');
    if (status >= 100 && status < 200 && status !== 101) return { body: undefined, then: 'next' };
    const asked = pending.shift();
    const hijacked =
      status === 101 ||
      (status === 200 &&
        HIJACKED_TYPES.test(head.headers['content-type'] ?? '') &&
        head.headers['content-length'] === undefined &&
        head.headers['transfer-encoding'] === undefined);
    if (asked?.mayHijack) requests.release(hijacked);
    if (hijacked) return { body: undefined, then: 'raw' };
    if (asked?.method === 'HEAD' || status === 204 || status === 304) return { body: undefined, then: 'next' };
    const body = framingOf(head);
    const delimited = body !== undefined || head.headers['content-length'] !== undefined;
    return { body, then: delimited ? 'next' : 'raw' };
  });
  return { requests, answers };
}

export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const recorded: RecordedRequest[] = [];
  const open = new Set<Socket>();
  let connections = 0;
  const tls = options.tlsDir
    ? {
        ca: readFileSync(join(options.tlsDir, 'ca.pem')),
        cert: readFileSync(join(options.tlsDir, 'server-cert.pem')),
        key: readFileSync(join(options.tlsDir, 'server-key.pem')),
      }
    : undefined;
  const engineTls =
    tls && options.identity ? { ...tls, cert: readFileSync(options.identity.cert), key: readFileSync(options.identity.key) } : tls;
  const dialEngine = (): Socket =>
    engineTls
      ? tlsConnect({ host: options.engine.host, port: options.engine.port, ...engineTls })
      : tcpConnect({ host: options.engine.host, port: options.engine.port, allowHalfOpen: true });

  const onConnection = (client: Socket) => {
    const connection = connections++;
    let order = 0;
    const upstream = dialEngine();
    const { requests, answers } = watchConnection((method, target, headers) => {
      recorded.push({ engine: options.label, connection, order: order++, at: Date.now(), method, target, headers });
    });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        // the other side may still be sending what was written before the close: let it drain
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 1000).unref();
      });
    }
    client.on('data', (chunk: Buffer) => requests.push(chunk));
    upstream.on('data', (chunk: Buffer) => answers.push(chunk));
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const server: Server = tls
    ? createTlsServer({ ...tls, allowHalfOpen: true }, onConnection)
    : createTcpServer({ allowHalfOpen: true }, onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => resolve());
  });
  // port 0: the system picks one
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.listen.port;
  return {
    addr: `${options.listen.host}:${port}`,
    requests: recorded,
    stop: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
