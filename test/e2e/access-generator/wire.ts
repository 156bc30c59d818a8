import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import type { Person } from '../access-support.js';

/**
 * Bytes written to the manager exactly as generated (framings a client library would not send:
 * chunked bodies, `Upgrade` on any route, a second request in the same write), and everything the
 * manager sends back until it closes or goes quiet: a hijacked stream's bytes are part of the answer.
 */

export interface WireAnswer {
  /** The last status line's code (a pipelined or smuggled request's answer comes last), 0 when none came. */
  readonly status: number;
  /** Every byte received, as latin1 text (headers, bodies, stream frames, further answers). */
  readonly bytes: string;
}

export interface Wire {
  send(person: Person, bytes: Buffer, quietMs?: number): Promise<WireAnswer>;
}

/** How long after the last byte an open connection counts as done (streams that never end). */
const QUIET_MS = 1_200;
/** No answer at all within this long ends the attempt too. */
const FIRST_BYTE_MS = 8_000;
/** A stream that keeps sending (the web view's live feed) is cut here. */
const LONGEST_MS = 10_000;

export function wireTo(dir: string, port: number): Wire {
  const file = (name: string) => readFileSync(join(dir, name));
  const ca = file('ca.pem');
  const keys = new Map<Person, { cert: Buffer; key: Buffer }>();
  const keysOf = (person: Person) => {
    let pair = keys.get(person);
    if (!pair) keys.set(person, (pair = { cert: file(`${person}-cert.pem`), key: file(`${person}-key.pem`) }));
    return pair;
  };
  return {
    send: (person, bytes, quietMs = QUIET_MS) =>
      new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, ca, ...keysOf(person) });
        const chunks: Buffer[] = [];
        let timer = setTimeout(() => finish(), FIRST_BYTE_MS);
        const cap = setTimeout(() => finish(), LONGEST_MS);
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          clearTimeout(cap);
          socket.destroy();
          const text = Buffer.concat(chunks).toString('latin1');
          const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)];
          resolve({ status: Number(statuses.at(-1)?.[1] ?? 0), bytes: text });
        };
        socket.on('secureConnect', () => socket.write(bytes));
        socket.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          clearTimeout(timer);
          timer = setTimeout(finish, quietMs);
        });
        socket.on('end', finish);
        socket.on('close', finish);
        socket.on('error', finish);
      }),
  };
}

/** One HTTP/1.1 request as bytes: the body with a length, chunked in two pieces, or none. */
export function requestBytes(
  method: string,
  target: string,
  headers: readonly (readonly [string, string])[],
  body: Buffer | undefined,
  framing: 'length' | 'chunked',
  close: boolean,
): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', ...headers.map(([name, value]) => `${name}: ${value}`)];
  if (close && !headers.some(([name]) => name.toLowerCase() === 'connection')) lines.push('Connection: close');
  if (body === undefined) return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (framing === 'length') {
    lines.push(`Content-Length: ${body.length}`);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  }
  lines.push('Transfer-Encoding: chunked');
  const half = Math.ceil(body.length / 2);
  const chunk = (part: Buffer) => (part.length === 0 ? [] : [Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    ...chunk(body.subarray(0, half)),
    ...chunk(body.subarray(half)),
    Buffer.from('0\r\n\r\n'),
  ]);
}

/** A one-file tar (ustar) holding `name`: a build context or an archive to put into a container. */
export function tarOf(name: string, content: string): Buffer {
  const data = Buffer.from(content);
  const header = Buffer.alloc(512);
  header.write(name, 0, 100);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write(
    `${Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, '0')}\0`,
    136,
  );
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padding = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, padding, Buffer.alloc(1024)]);
}
