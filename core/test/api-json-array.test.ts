import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJsonArray } from '../src/http/responses.js';

interface Row {
  Id: string;
  Names: string[];
  Labels: Record<string, string>;
}

const rows: Row[] = Array.from({ length: 3000 }, (_, i) => ({
  Id: `${i}`.padStart(64, '0'),
  Names: [`/c${i}`],
  Labels: { app: `a${i % 7}`, 'com.example': 'x'.repeat(200) },
}));

// about 33 MB of rows: far more than the writer may leave buffered (plus the kernel's socket buffers)
// for a client that does not read
const many: Row[] = Array.from({ length: 100_000 }, (_, i) => ({
  Id: `${i}`.padStart(64, '0'),
  Names: [`/c${i}`],
  Labels: { pad: 'x'.repeat(250) },
}));

describe('sendJsonArray (docker ps answers)', () => {
  let server: Server;
  let url: string;
  const writes: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const write = res.write.bind(res);
      res.write = ((chunk: string, ...rest: never[]) => {
        writes.push(chunk.length);
        return write(chunk, ...rest);
      }) as typeof res.write;
      const items = req.url === '/empty' ? [] : req.url === '/many' ? many : rows;
      void sendJsonArray(res, items, (row) => JSON.stringify(row));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers the whole list as one JSON array, written in slices under V8 large-object size', async () => {
    const response = await fetch(`${url}/rows`);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(rows);
    expect(writes.length).toBeGreaterThan(10);
    expect(Math.max(...writes)).toBeLessThan(128 * 1024);
  });

  it('stops writing for a client that does not read once about a megabyte waits in the manager', async () => {
    writes.length = 0;
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.pause();
    socket.write('GET /many HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const written = writes.reduce((sum, length) => sum + length, 0);
    socket.destroy();
    expect(written).toBeGreaterThan(1024 * 1024);
    expect(written).toBeLessThan(10 * 1024 * 1024);
  });

  it('answers an empty list as []', async () => {
    expect(await (await fetch(`${url}/empty`)).text()).toBe('[]');
  });
});
