import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scheduler } from '@swarm/plugin-sdk';
import { startTestbed, type Testbed } from '../../test/harness/engines.js';
import { startApiServer, type ApiServer } from '../dist/api/index.js';
import { EngineCluster } from './api-engine-cluster.js';
import { docker, hostPort, http } from './api-test-client.js';
import { recordingLogger } from './api-recording-logger.js';

const runFile = promisify(execFile);

// Engine 30 only (this file's range), proxied by a real API server on an ephemeral port.
let testbed: Testbed;
let cluster: EngineCluster;
let server: ApiServer;
let host: string;
let base: { host: string; port: number };
let socketDir: string;
const logger = recordingLogger();

beforeAll(async () => {
  testbed = await startTestbed({ first: 30, count: 1 });
  const engine = testbed.engines[0]!;
  cluster = new EngineCluster({ protocol: 'http', host: engine.host, port: engine.port }, engine.name);
  await cluster.start();
  socketDir = mkdtempSync(join(tmpdir(), 'swarm-api-'));
  server = await startApiServer({
    cluster,
    scheduler: {} as Scheduler,
    settings: { hosts: ['tcp://127.0.0.1:0', `unix://${socketDir}/swarm.sock`], cors: true },
    logger,
    version: '0.1.0-test',
    maxJsonBodyBytes: 64 * 1024,
    headersTimeoutMs: 1500,
  });
  host = server.addresses[0]!;
  base = hostPort(host);
});

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
  await testbed?.stop();
  rmSync(socketDir, { recursive: true, force: true });
});

describe('negotiation and system routes', () => {
  it('answers /_ping with the API version headers, bare and versioned, GET and HEAD', async () => {
    for (const path of ['/_ping', '/v1.41/_ping']) {
      const answer = await http(base, 'GET', path);
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('OK');
      expect(answer.headers['api-version']).toBe('1.41');
      expect(answer.headers['ostype']).toBe('linux');
    }
    const head = await http(base, 'HEAD', '/_ping');
    expect(head.status).toBe(200);
    expect(head.headers['api-version']).toBe('1.41');
  });

  it('lets docker CLI 28 negotiate without DOCKER_API_VERSION', async () => {
    const result = await docker(host, ['version', '--format', '{{.Server.Version}} {{.Server.APIVersion}} {{.Server.MinAPIVersion}}']);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('swarm/0.1.0-test 1.41 1.12');
  });

  it('refuses API versions newer than ours the way the engine does', async () => {
    const answer = await http(base, 'GET', '/v1.99/version');
    expect(answer.status).toBe(400);
    expect(answer.json<{ message: string }>().message).toBe('client version 1.99 is too new. Maximum supported API version is 1.41');
  });

  it('prints the cluster info through docker info', async () => {
    const result = await docker(host, ['info', '--format', '{{json .}}']);
    expect(result.code).toBe(0);
    const info = JSON.parse(result.stdout) as { ServerVersion: string; NCPU: number; SystemStatus: string[][]; Containers: number };
    expect(info.ServerVersion).toBe('swarm/0.1.0-test');
    expect(info.NCPU).toBe(2);
    expect(info.SystemStatus).toContainEqual(['Role', 'primary']);
  });

  it('answers unknown routes with a Docker-style 404', async () => {
    const answer = await http(base, 'GET', '/v1.41/no/such/route');
    expect(answer.status).toBe(404);
    expect(answer.json()).toEqual({ message: 'page not found' });
  });

  it('answers swarm-mode commands as an engine outside swarm mode', async () => {
    const result = await docker(host, ['service', 'ls']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('This node is not a swarm manager');
  });

  it('serves on the unix socket too', async () => {
    const result = await docker(`unix://${socketDir}/swarm.sock`, ['version', '--format', '{{.Server.Version}}']);
    expect(result.stdout.trim()).toBe('swarm/0.1.0-test');
  });

  it('adds CORS headers when --cors is on', async () => {
    const answer = await http(base, 'OPTIONS', '/containers/json', undefined, { Origin: 'http://example.test' });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('containers through the real docker CLI', () => {
  it('runs, lists with node-prefixed names, inspects with Node, logs, stops and removes', async () => {
    const created = await docker(host, [
      'run',
      '-d',
      '--name',
      'api-web',
      '--label',
      'tier=web',
      'busybox:local',
      'sh',
      '-c',
      'echo hello-from-web; sleep 300',
    ]);
    expect(created.stderr).toBe('');
    const id = created.stdout.trim();
    expect(id).toMatch(/^[0-9a-f]{64}$/);

    const ps = await docker(host, ['ps', '--filter', 'label=tier=web', '--format', '{{.Names}} {{.Status}}']);
    expect(ps.stdout.trim()).toMatch(/^node30\/api-web Up/);

    const inspect = JSON.parse((await docker(host, ['inspect', 'api-web'])).stdout) as Array<{
      Id: string;
      Node: { Name: string; Addr: string };
    }>;
    expect(inspect[0]!.Id).toBe(id);
    expect(inspect[0]!.Node).toMatchObject({ Name: 'node30', Addr: '127.0.0.31:2375' });

    const logs = await docker(host, ['logs', 'node30/api-web']);
    expect(logs.stdout).toBe('hello-from-web\n');

    expect((await docker(host, ['stop', '-t', '1', 'api-web'])).code).toBe(0);
    await cluster.refresh();
    const exited = await docker(host, ['ps', '-a', '--filter', 'status=exited', '--filter', 'name=api-web', '--format', '{{.Names}}']);
    expect(exited.stdout.trim()).toBe('node30/api-web');
    expect((await docker(host, ['rm', 'api-web'])).code).toBe(0);
    const gone = await docker(host, ['container', 'inspect', 'api-web']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('No such container: api-web');
  });

  it('attaches both ways with half-close: stdin piped into `docker run -i cat` comes back', async () => {
    const result = await docker(host, ['run', '-i', '--rm', 'busybox:local', 'cat'], 'line one\nline two\n');
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('line one\nline two\n');
    expect(result.code).toBe(0);
  });

  it('passes exit codes of `docker run` and execs in a running container', async () => {
    const failed = await docker(host, ['run', '--rm', 'busybox:local', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(failed.code).toBe(3);
    expect(failed.stdout).toBe('out\n');
    expect(failed.stderr).toBe('err\n');

    await docker(host, ['run', '-d', '--name', 'api-exec', 'busybox:local', 'sleep', '300']);
    const exec = await docker(host, ['exec', '-i', 'api-exec', 'sh', '-c', 'cat; echo done'], 'piped\n');
    expect(exec.stdout).toBe('piped\ndone\n');
    const detached = await docker(host, ['exec', '-d', 'api-exec', 'touch', '/tmp/marker']);
    expect(detached.code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await docker(host, ['exec', 'api-exec', 'ls', '/tmp/marker'])).stdout.trim()).toBe('/tmp/marker');
  });

  it('copies files both ways with docker cp and reports changes and top', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swarm-cp-'));
    writeFileSync(join(dir, 'in.txt'), 'copied in\n');
    expect((await docker(host, ['cp', join(dir, 'in.txt'), 'api-exec:/tmp/in.txt'])).code).toBe(0);
    expect((await docker(host, ['exec', 'api-exec', 'cat', '/tmp/in.txt'])).stdout).toBe('copied in\n');
    expect((await docker(host, ['cp', 'api-exec:/tmp/in.txt', join(dir, 'out.txt')])).code).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('copied in\n');
    rmSync(dir, { recursive: true, force: true });
    expect((await docker(host, ['diff', 'api-exec'])).stdout).toContain('/tmp/in.txt');
    expect((await docker(host, ['top', 'api-exec'])).stdout).toContain('sleep 300');
    const stats = await docker(host, ['stats', '--no-stream', '--format', '{{.Name}}', 'api-exec']);
    expect(stats.stdout.trim()).toBe('api-exec');
  });

  it('filters the list by volume, network, health, before and limit, and reports sizes', async () => {
    await docker(host, ['volume', 'create', 'api-data']);
    await docker(host, ['run', '-d', '--name', 'api-vol', '-v', 'api-data:/data', 'busybox:local', 'sleep', '300']);
    const byVolume = await docker(host, ['ps', '--filter', 'volume=api-data', '--format', '{{.Names}}']);
    expect(byVolume.stdout.trim()).toBe('node30/api-vol');
    const byNetwork = await docker(host, ['ps', '--filter', 'network=bridge', '--format', '{{.Names}}']);
    expect(byNetwork.stdout).toContain('node30/api-vol');
    expect((await docker(host, ['ps', '--filter', 'health=healthy', '-q'])).stdout.trim()).toBe('');
    const latest = await docker(host, ['ps', '-a', '--last', '1', '--format', '{{.Names}}']);
    expect(latest.stdout.trim()).toBe('node30/api-vol');
    const before = await docker(host, ['ps', '-a', '--filter', 'before=api-vol', '--format', '{{.Names}}']);
    expect(before.stdout).not.toContain('api-vol');
    expect(before.stdout).toContain('api-exec');
    const sized = await docker(host, ['ps', '-s', '--filter', 'name=api-vol', '--format', '{{.Size}}']);
    expect(sized.stdout.trim()).toMatch(/B \(virtual /);
    const bad = await docker(host, ['ps', '--filter', 'status=sleeping']);
    expect(bad.stderr).toContain('Unrecognised filter value for status: sleeping');
    await docker(host, ['rm', '-f', '-v', 'api-vol']);
  });

  it('answers unknown containers and exec ids with Docker 404s', async () => {
    const stop = await docker(host, ['stop', 'no-such-thing']);
    expect(stop.stderr).toContain('No such container: no-such-thing');
    const exec = await http(base, 'GET', '/v1.41/exec/0123456789abcdef/json');
    expect(exec.status).toBe(404);
    expect(exec.json()).toEqual({ message: 'No such exec instance: 0123456789abcdef' });
  });

  it('returns a clear 500 when the container node is unhealthy', async () => {
    cluster.healthy = false;
    try {
      const answer = await http(base, 'POST', '/containers/api-exec/stop');
      expect(answer.status).toBe(500);
      expect(answer.json()).toEqual({ message: 'Container api-exec running on unhealthy node node30' });
    } finally {
      cluster.healthy = true;
    }
  });
});

describe('bad input', () => {
  it('rejects malformed JSON, a wrong content type and an oversized body, and keeps serving', async () => {
    const malformed = await http(base, 'POST', '/containers/create', '{"Image": ', { 'Content-Type': 'application/json' });
    expect(malformed.status).toBe(400);
    expect(malformed.json<{ message: string }>().message).toMatch(/^invalid JSON body/);

    const wrongType = await http(base, 'POST', '/containers/create', '{"Image":"busybox:local"}', { 'Content-Type': 'text/xml' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json()).toEqual({ message: "Content-Type specified (text/xml) must be 'application/json'" });

    const big = JSON.stringify({ Image: 'busybox:local', Env: ['X='.padEnd(100_000, 'x')] });
    const oversized = await http(base, 'POST', '/containers/create', big, { 'Content-Type': 'application/json' });
    expect(oversized.status).toBe(413);
    expect(oversized.json<{ message: string }>().message).toContain('request body too large');

    expect((await http(base, 'GET', '/_ping')).text).toBe('OK');
  });

  it('closes a client whose headers trickle in too slowly with a 408', async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(base.port, base.host);
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.write('GET /_ping HTTP/1.1\r\n');
      const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 300);
      socket.on('close', () => clearInterval(trickle));
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect((await http(base, 'GET', '/_ping')).text).toBe('OK');
  });

  it('cancels the engine call when a client leaves a `logs -f` stream', async () => {
    await docker(host, ['run', '-d', '--name', 'api-chatty', 'busybox:local', 'sh', '-c', 'while true; do echo tick; sleep 0.1; done']);
    // Keep-alive sockets to the engine stay; the one carrying the stream must close.
    const engineSockets = async () => {
      const { stdout } = await runFile('ss', ['-Htn', 'state', 'established', 'dst', '127.0.0.31:2375']);
      return stdout.split('\n').filter((line) => line.trim() !== '').length;
    };
    const socket = connect(base.port, base.host);
    const received = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (text.includes('tick')) resolve(text);
      });
      socket.write('GET /v1.41/containers/api-chatty/logs?follow=1&stdout=1 HTTP/1.1\r\nHost: swarm\r\n\r\n');
    });
    expect(received).toContain('tick');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const during = await engineSockets();
    socket.destroy();
    let after = during;
    for (let i = 0; i < 30 && after >= during; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await engineSockets();
    }
    expect(after).toBeLessThan(during);
    expect((await http(base, 'GET', '/_ping')).text).toBe('OK');
  });
});

describe('swarm endpoints, events and logs', () => {
  it('explains a placement and exposes Prometheus metrics', async () => {
    const explained = await http(base, 'POST', '/_swarm/v1/explain', JSON.stringify({ Image: 'busybox:local' }), {
      'Content-Type': 'application/json',
    });
    expect(explained.status).toBe(200);
    expect(explained.json()).toMatchObject({ chosen: 'node30', summary: '1/1 nodes are available for busybox:local' });
    const metrics = await http(base, 'GET', '/_swarm/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/swarm_api_requests_total\{method="GET",route="\/_ping",status="200"\} \d+/);
    expect(metrics.text).toMatch(/swarm_scheduling_decisions_total\{kind="container",result="scheduled"\} \d+/);
    expect(metrics.text).toContain('swarm_node_healthy{node="node30"} 1');
    expect(metrics.text).toContain('swarm_api_request_duration_seconds_bucket');
  });

  it('replays events since a time with node info and honours filters and until', async () => {
    const since = Math.floor(Date.now() / 1000) - 600;
    const until = Math.floor(Date.now() / 1000) + 1;
    const answer = await http(
      base,
      'GET',
      `/v1.41/events?since=${since}&until=${until}&filters=${encodeURIComponent(JSON.stringify({ event: { create: true }, container: { 'api-web': true } }))}`,
    );
    expect(answer.status).toBe(200);
    const events = answer.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { Action: string; node: { Name: string }; Actor: { Attributes: { name: string } } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ Action: 'create', node: { Name: 'node30' }, Actor: { Attributes: { name: 'api-web' } } });
  });

  it('logs one debug line per request', () => {
    const lines = logger.lines.filter((line) => line.level === 'debug' && line.message === 'api request');
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.some((line) => line.fields.route === '/containers/*' && line.fields.method === 'POST')).toBe(true);
  });
});

describe('classic hijack without an Upgrade header', () => {
  /** One raw exchange: everything received until `until` matches. */
  function exchange(request: string, until: (bytes: Buffer) => boolean): Promise<Buffer> {
    return new Promise((resolve) => {
      const socket = connect(base.port, base.host);
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(Buffer.concat(chunks));
      }, 5000);
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        if (until(Buffer.concat(chunks))) {
          clearTimeout(timer);
          socket.destroy();
          resolve(Buffer.concat(chunks));
        }
      });
      socket.write(request);
    });
  }

  it('answers attach with the stream type and then unframed multiplexed bytes', async () => {
    const bytes = await exchange(
      'POST /v1.41/containers/api-chatty/attach?stream=1&stdout=1 HTTP/1.1\r\nHost: swarm\r\nContent-Length: 0\r\n\r\n',
      (all) => all.includes('tick'),
    );
    const split = bytes.indexOf('\r\n\r\n');
    const head = bytes.subarray(0, split).toString();
    expect(head).toMatch(/^HTTP\/1.1 200 OK\r\n/);
    expect(head).toMatch(/Content-Type: application\/vnd\.docker\.(raw|multiplexed)-stream/);
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    const body = bytes.subarray(split + 4);
    expect([...body.subarray(0, 4)]).toEqual([1, 0, 0, 0]);
    expect(body.subarray(8).toString()).toMatch(/^tick/);
  });

  it('streams exec output the same way', async () => {
    const created = await http(
      base,
      'POST',
      '/containers/api-exec/exec',
      JSON.stringify({ Cmd: ['echo', 'raw-exec'], AttachStdout: true }),
      { 'Content-Type': 'application/json' },
    );
    const { Id } = created.json<{ Id: string }>();
    const body = JSON.stringify({ Detach: false, Tty: false });
    const bytes = await exchange(
      `POST /exec/${Id}/start HTTP/1.1\r\nHost: swarm\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      (all) => all.includes('raw-exec\n'),
    );
    const text = bytes.toString('latin1');
    expect(text).toMatch(/^HTTP\/1.1 200 OK\r\n/);
    expect(text.toLowerCase()).not.toContain('transfer-encoding');
    expect(text).toContain('raw-exec\n');
  });
});
