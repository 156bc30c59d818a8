import { describe, expect, it } from 'vitest';
import { MalformedResponse, ResponseReader, type ReadResponse } from '../src/helpers/engine/response-reader.js';

const plain = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** What Go's net/http writes for a body larger than its buffer: chunked, here with an extension and a trailer. */
const chunk = (text: string, extension = '') => `${Buffer.byteLength(text).toString(16)}${extension}\r\n${text}\r\n`;
const chunked =
  'HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n' +
  chunk('{"message":"No such conta', ';ext=1') +
  chunk('iner: gone"}') +
  '0\r\nX-Trailer: t\r\n\r\n';

const noBody = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nServer: Docker\r\n\r\n';

const read = (answers: ReadResponse[]) => answers.map(({ status, body, closes }) => ({ status, body: body.toString(), closes }));

const expected = [
  { status: 200, body: '{"Id":"a1"}', closes: false },
  { status: 404, body: '{"message":"No such container: gone"}', closes: false },
  { status: 204, body: '', closes: false },
  { status: 200, body: '[]', closes: true },
];
const stream = plain('{"Id":"a1"}') + chunked + noBody + plain('[]', 'Connection: close\r\n');

describe('ResponseReader', () => {
  it('reads pipelined answers in order: by length, chunked (extensions and trailers), 1xx skipped, 204 without body', () => {
    const reader = new ResponseReader();
    expect(read(reader.push(Buffer.from(stream)))).toEqual(expected);
    expect(reader.midAnswer).toBe(false);
  });

  it('reads the same answers whatever the bytes are split into', () => {
    for (const size of [1, 2, 3, 7, 64]) {
      const reader = new ResponseReader();
      const answers: ReadResponse[] = [];
      const bytes = Buffer.from(stream);
      for (let start = 0; start < bytes.length; start += size) answers.push(...reader.push(bytes.subarray(start, start + size)));
      expect(read(answers), `split every ${size} bytes`).toEqual(expected);
    }
  });

  it('ends an answer without length at the end of the connection, and tells a cut answer', () => {
    const reader = new ResponseReader();
    expect(reader.push(Buffer.from('HTTP/1.0 200 OK\r\n\r\n{"a":'))).toEqual([]);
    expect(reader.push(Buffer.from('1}'))).toEqual([]);
    expect(read([reader.end()!])).toEqual([{ status: 200, body: '{"a":1}', closes: true }]);

    const cut = new ResponseReader();
    cut.push(Buffer.from(plain('{"Id":"a1"}').slice(0, -3)));
    expect(cut.midAnswer).toBe(true);
    expect(cut.end()).toBeUndefined();
  });

  it('takes HTTP/1.0 as closing unless it keeps alive', () => {
    const reader = new ResponseReader();
    const answers = reader.push(
      Buffer.from('HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n[]'),
    );
    expect(answers.map((answer) => answer.closes)).toEqual([false, true]);
  });

  it('refuses bytes that are not an HTTP/1.x answer', () => {
    expect(() => new ResponseReader().push(Buffer.from('SSH-2.0-OpenSSH_9.6\r\n\r\n'))).toThrow(MalformedResponse);
    expect(() => new ResponseReader().push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'))).toThrow(
      /bad chunk size "zz"/,
    );
    expect(() => new ResponseReader().push(Buffer.alloc(70 * 1024, 'a'))).toThrow(/head too long/);
  });
});
