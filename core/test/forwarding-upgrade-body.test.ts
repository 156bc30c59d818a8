import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readUpgradeBody } from '../dist/forwarding/upgrade-body.js';
import { rawRequestHead } from '../dist/forwarding/raw-http.js';

// What an upgraded request takes to the engine: its own body, as long as Content-Length says, and
// nothing the client wrote behind it (test/e2e/access-smuggling.test.ts shows it on real engines).
function upgraded(headers: Record<string, string>): IncomingMessage {
  return { method: 'POST', headers, rawHeaders: Object.entries(headers).flat() } as unknown as IncomingMessage;
}

const BODY = '{"Detach":false,"Tty":false}';
const BEHIND = 'GET /containers/theirs/json HTTP/1.1\r\nHost: x\r\n\r\n';

describe('an upgraded request keeps only its own body', () => {
  it('splits what came with the head into the body and what was written behind it', async () => {
    const socket = new PassThrough();
    const { body, rest } = await readUpgradeBody(upgraded({ 'content-length': String(BODY.length) }), socket, Buffer.from(BODY + BEHIND));
    expect(body.toString()).toBe(BODY);
    expect(rest.toString()).toBe(BEHIND);
  });

  it('reads the rest of the body from the socket when the head brought only part of it, and leaves the socket paused', async () => {
    const socket = new PassThrough();
    const reading = readUpgradeBody(upgraded({ 'content-length': String(BODY.length) }), socket, Buffer.from(BODY.slice(0, 5)));
    socket.write(BODY.slice(5) + BEHIND);
    const { body, rest } = await reading;
    expect(body.toString()).toBe(BODY);
    expect(rest.toString()).toBe(BEHIND);
    expect(socket.isPaused()).toBe(true);
  });

  it('has no body without a Content-Length: every byte behind the head is kept apart', async () => {
    const { body, rest } = await readUpgradeBody(upgraded({}), new PassThrough(), Buffer.from(BODY + BEHIND));
    expect(body.length).toBe(0);
    expect(rest.toString()).toBe(BODY + BEHIND);
  });

  it('refuses a chunked upgraded request, naming the header', async () => {
    await expect(
      readUpgradeBody(upgraded({ 'transfer-encoding': 'chunked' }), new PassThrough(), Buffer.from(`1c\r\n${BODY}\r\n0\r\n\r\n`)),
    ).rejects.toThrow(/invalid Transfer-Encoding: a request that upgrades the connection must send its body with a Content-Length/);
  });

  it('refuses a body that ends before its declared length', async () => {
    const socket = new PassThrough();
    const reading = readUpgradeBody(upgraded({ 'content-length': '100' }), socket, Buffer.from(BODY));
    socket.destroy();
    await expect(reading).rejects.toThrow(`invalid Content-Length: the body ended after ${BODY.length} of its 100 bytes`);
  });

  it('refuses a body over the limit before reading it', async () => {
    await expect(
      readUpgradeBody(upgraded({ 'content-length': String(2 * 1024 * 1024) }), new PassThrough(), Buffer.alloc(0)),
    ).rejects.toThrow(/request body too large/);
  });
});

describe('a request head written by hand', () => {
  it('carries the headers the manager kept, not those it removed (a forged forwarded-caller header)', () => {
    const req = upgraded({
      'x-swarm-forwarded-caller': 'forged',
      'content-type': 'application/json',
      connection: 'Upgrade',
      upgrade: 'tcp',
    });
    delete req.headers['x-swarm-forwarded-caller'];
    const head = rawRequestHead(req, '/v1.41/exec/1/start', 'engine:2376', { keepHops: false });
    expect(head).toBe('POST /v1.41/exec/1/start HTTP/1.1\r\ncontent-type: application/json\r\nHost: engine:2376\r\n\r\n');
  });
});
