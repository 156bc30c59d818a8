import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingProxy, type RecordingProxy } from '../harness/recording-proxy.js';

// The recording proxy counts requests as an engine's parser reads them; access-smuggling's
// invariant rests on it. A Node HTTP server stands in for the engine: it answers every request,
// switches `/switch` to a raw stream (101), and refuses `/refuse` with 409 without switching.
// Ports 28110-28111 (of access-smuggling's 28100-28119) belong to this file.

const ENGINE_PORT = 28110;
const PROXY_PORT = 28111;

let engine: Server;
let proxy: RecordingProxy;

beforeAll(async () => {
  engine = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url === '/refuse' ? 409 : 200, { 'Content-Type': 'text/plain' });
      res.end(`answered ${req.method} ${req.url}`);
    });
  });
  engine.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    if (req.url === '/switch') socket.write('HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nstream');
    else socket.write('HTTP/1.1 409 Conflict\r\nContent-Length: 7\r\n\r\nrefused');
    // what follows is stream data after a switch, or (refused) never read: Node let the socket go
    socket.on('data', () => undefined);
    setTimeout(() => socket.end(), 300);
  });
  await new Promise<void>((resolve) => engine.listen(ENGINE_PORT, '127.0.0.1', () => resolve()));
  proxy = await startRecordingProxy({
    label: 'engine',
    listen: { host: '127.0.0.1', port: PROXY_PORT },
    engine: { host: '127.0.0.1', port: ENGINE_PORT },
  });
});

afterAll(async () => {
  await proxy?.stop();
  await new Promise<void>((resolve) => engine?.close(() => resolve()));
});

/** Writes `bytes` in one write and reads until the engine closes (or 2 s). */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(PROXY_PORT, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    const done = () => {
      socket.destroy();
      resolve(text);
    };
    setTimeout(done, 2_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', done);
    socket.on('error', done);
  });
}

function seen(since: number): string[] {
  return proxy.requests.slice(since).map((request) => `${request.method} ${request.target}`);
}

describe('the recording proxy counts requests as the engine reads them', () => {
  it('counts pipelined requests one by one, skipping bodies by Content-Length and chunked framing', async () => {
    const since = proxy.requests.length;
    await exchange(
      'POST /a HTTP/1.1\r\nHost: e\r\nContent-Length: 16\r\n\r\nGET /not-a-req\r\n' +
        'POST /b HTTP/1.1\r\nHost: e\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nGET /\r\n0\r\n\r\n' +
        'GET /c HTTP/1.1\r\nHost: e\r\nConnection: close\r\n\r\n',
    );
    expect(seen(since)).toEqual(['POST /a', 'POST /b', 'GET /c']);
  });

  it('stops at a switch of protocols: what follows a 101 is stream data', async () => {
    const since = proxy.requests.length;
    const answer = await exchange(
      'POST /switch HTTP/1.1\r\nHost: e\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nGET /stdin HTTP/1.1\r\nHost: e\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 101 /);
    expect(seen(since)).toEqual(['POST /switch']);
  });

  it('counts what follows an upgrade the engine refused as requests (a smuggled one)', async () => {
    const since = proxy.requests.length;
    await exchange(
      'POST /refuse HTTP/1.1\r\nHost: e\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: e\r\n\r\n',
    );
    expect(seen(since)).toEqual(['POST /refuse', 'GET /smuggled']);
  });
});
