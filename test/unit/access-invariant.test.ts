import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeEngineRequests, writeInvariantSection, type AuditLine } from '../e2e/access-invariant.js';
import { startRecordingProxy, type RecordingProxy } from '../harness/recording-proxy.js';

// The access suites' "nothing reaches an engine unjudged" check must be able to fail. A Node HTTP
// server stands in for an engine behind the recording proxy; requests written to the proxy stand
// for what the manager forwarded (with the client's User-Agent), what it read on its own (none),
// and what reached the engine past the manager; a hand-written audit log says what was allowed.
// Ports: the system's (0).

let engine: Server;
let proxy: RecordingProxy;

beforeAll(async () => {
  engine = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', () => resolve()));
  const address = engine.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  proxy = await startRecordingProxy({ label: 'node1', listen: { host: '127.0.0.1', port: 0 }, engine: { host: '127.0.0.1', port } });
});

afterAll(async () => {
  await proxy?.stop();
  await new Promise<void>((resolve) => engine?.close(() => resolve()));
});

/** Writes `bytes` to the proxy on a new connection and waits for the engine's answers. */
function send(bytes: string): Promise<void> {
  const [host, port] = proxy.addr.split(':');
  return new Promise((resolve) => {
    const socket = connect(Number(port), host!, () => socket.write(bytes));
    const done = () => {
      socket.destroy();
      resolve();
    };
    setTimeout(done, 300);
    socket.on('error', done);
  });
}

const ID = 'c0ffee';
const request = (method: string, path: string, userAgent?: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: e\r\n${userAgent ? `User-Agent: ${userAgent}\r\n` : ''}Content-Length: 0\r\n\r\n`;
const line = (method: string, path: string, allowed: boolean, id?: string): AuditLine => ({
  method,
  path,
  status: allowed ? 204 : 403,
  decision: { allowed },
  ...(id ? { object: { kind: 'container', id } } : {}),
});

const AUDIT: readonly AuditLine[] = [
  line('POST', '/v1.41/containers/web/start', true, ID),
  line('DELETE', '/v1.41/images/busybox:local', true),
  line('POST', '/v1.41/containers/web/kill', false, ID),
  line('GET', '/v1.41/containers/json', true),
  line('POST', '/v1.41/containers/create?name=web', true),
  line('GET', '/v1.41/volumes/node1/data', true),
];

describe('the engine invariant', () => {
  it("explains forwarded requests by allowed lines (object by ID, fan-out per engine) and the manager's own reads", async () => {
    const since = proxy.requests.length;
    await send(request('POST', `/v1.41/containers/${ID}/start`, 'Docker-Client/28'));
    await send(request('DELETE', '/v1.41/images/busybox:local', 'Docker-Client/28'));
    await send(request('DELETE', '/v1.41/images/busybox:local', 'Docker-Client/28'));
    await send(request('GET', '/v1.41/containers/json?all=1') + request('GET', `/containers/${ID}/json`));
    // the named volume the create makes, on each of two engines, and the create
    await send(request('POST', '/v1.41/volumes/create') + request('POST', '/v1.41/volumes/create'));
    await send(request('POST', '/v1.41/containers/create?name=web', 'Docker-Client/28'));
    // a volume the client named as node/name, which the manager forwards to that node by its name
    await send(request('GET', '/v1.41/volumes/data', 'Docker-Client/28'));
    const report = judgeEngineRequests(proxy.requests.slice(since), AUDIT, 2);
    expect(report).toMatchObject({ received: 9, judged: 7, own: 2, unexplained: [] });
    expect(report.rows.find((row) => row.family === 'GET /volumes/{id}')).toMatchObject({ judged: 1, allowed: 1 });
  });

  it('fails on a request sent to the engine past the manager, one the audit log refused, and one more than allowed', async () => {
    const since = proxy.requests.length;
    await send(request('POST', `/v1.41/containers/${ID}/start`, 'Docker-Client/28'));
    await send(request('POST', `/v1.41/containers/${ID}/start`, 'Docker-Client/28'));
    await send(request('POST', `/v1.41/containers/${ID}/kill`, 'Docker-Client/28'));
    await send(request('GET', `/v1.41/containers/${ID}/export`));
    await send(request('DELETE', '/v1.41/images/busybox:local', 'x') + request('DELETE', '/v1.41/images/busybox:local', 'x'));
    await send(request('DELETE', '/v1.41/images/busybox:local', 'x'));
    await send(
      request('POST', '/v1.41/volumes/create') + request('POST', '/v1.41/volumes/create') + request('POST', '/v1.41/volumes/create'),
    );
    const report = judgeEngineRequests(proxy.requests.slice(since), AUDIT, 2);
    expect(report.unexplained).toEqual([
      `node1 POST /v1.41/containers/${ID}/start`,
      `node1 POST /v1.41/containers/${ID}/kill`,
      `node1 GET /v1.41/containers/${ID}/export`,
      'node1 DELETE /v1.41/images/busybox:local',
      'node1 POST /v1.41/volumes/create',
    ]);
    expect(report.rows.find((row) => row.family === 'POST /containers/{id}/kill')).toMatchObject({ judged: 1, denied: 1, unexplained: 1 });
  });

  it("counts a read without a User-Agent as judged when it rides on a client's connection (smuggled behind it)", async () => {
    const since = proxy.requests.length;
    await send(request('POST', `/v1.41/containers/${ID}/start`, 'Docker-Client/28') + request('GET', `/v1.41/containers/other/json`));
    const report = judgeEngineRequests(proxy.requests.slice(since), AUDIT, 2);
    expect(report).toMatchObject({ judged: 2, own: 0, unexplained: ['node1 GET /v1.41/containers/other/json'] });
  });

  it("rewrites its suite's section of the results file and keeps the others", () => {
    const dir = mkdtempSync(join(tmpdir(), 'access-invariant-'));
    try {
      const file = join(dir, 'results.md');
      writeFileSync(file, '# title\n\nintro\n\n## suite-b\n\nold b\n\n## suite-a\n\nold a\n');
      const report = judgeEngineRequests([], AUDIT, 2);
      writeInvariantSection('suite-a', report, file);
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith('# title\n\nintro\n\n## suite-a\n')).toBe(true);
      expect(text).toContain('## suite-b\n\nold b\n');
      expect(text).not.toContain('old a');
      expect(text).toContain('| `POST /containers/{id}/kill` | 0 | 0 | 0 | 1 | 0 |');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
