import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerOk, sleep, startApiCluster, startRegistry, type ApiCluster, type Registry } from './api-support.js';

// Engines 40-41 behind `swarm manage` on port 23404; registry on 23411 for an interrupted pull.
let cluster: ApiCluster;
let registry: Registry;
let client: Docker;
const port = 23404;

beforeAll(async () => {
  [cluster, registry] = await Promise.all([startApiCluster(40, 2, port), startRegistry(23411)]);
  client = new Docker({ host: '127.0.0.1', port });
});

afterAll(async () => {
  await cluster?.stop();
  await registry?.stop();
});

/** stdout of a multiplexed (non-tty) stream. */
async function demuxedStdout(stream: NodeJS.ReadableStream): Promise<string> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  client.modem.demuxStream(stream, stdout, stderr);
  await new Promise((resolve) => stream.on('end', resolve));
  return text;
}

/** Raw HTTP exchange on a fresh connection: what the manager sends back, until it closes or `until` shows. */
function raw(request: string, until?: RegExp, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (until?.test(text)) {
        clearTimeout(timer);
        done();
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.write(request);
  });
}

describe('dockerode', () => {
  it('creates, starts, reads logs, execs, inspects and removes', async () => {
    const container = await client.createContainer({
      Image: 'busybox:local',
      name: 'dode',
      Cmd: ['sh', '-c', 'echo from-dockerode; sleep 600'],
    });
    await container.start();
    await sleep(500);
    const logs = (await container.logs({ stdout: true, stderr: true })) as unknown as Buffer;
    expect(logs.toString('latin1')).toContain('from-dockerode');

    const exec = await container.exec({ Cmd: ['sh', '-c', 'echo exec-out; exit 7'], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    expect(await demuxedStdout(stream)).toBe('exec-out\n');
    await sleep(200);
    expect((await exec.inspect()).ExitCode).toBe(7);

    const inspect = (await container.inspect()) as unknown as { Name: string; Node: { Name: string } };
    expect(inspect.Name).toBe('/dode');
    expect(inspect.Node.Name).toMatch(/^node4[01]$/);
    const listed = await client.listContainers({ filters: { name: ['dode'] } });
    expect(listed[0]!.Names[0]).toBe(`/${inspect.Node.Name}/dode`);

    await container.remove({ force: true });
    await expect(client.getContainer('dode').inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('bad input against the manager', () => {
  it('answers malformed JSON, wrong content types and unknown things with Docker errors', async () => {
    const malformed = await raw(
      'POST /v1.41/containers/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"Image',
      /\r\n\r\n.*\}/s,
    );
    expect(malformed).toMatch(/^HTTP\/1.1 400/);
    expect(malformed).toContain('"message":"invalid JSON body');
    const wrongType = await raw(
      'POST /containers/create HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain-ish\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      /\}$/,
    );
    expect(wrongType).toMatch(/^HTTP\/1.1 400/);
    const route = await raw('GET /v1.41/nothing/here HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', /\}$/);
    expect(route).toMatch(/^HTTP\/1.1 404/);
    expect(route).toContain('{"message":"page not found"}');
    await expect(client.getImage('no-such:image').inspect()).rejects.toMatchObject({
      statusCode: 404,
      json: { message: 'No such image: no-such:image' },
    });
    await expect(client.getExec('feedfacefeedface').inspect()).rejects.toMatchObject({ statusCode: 404 });
    const big = 'x'.repeat(5 * 1024 * 1024);
    const oversized = await raw(
      `POST /containers/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length + 12}\r\nConnection: close\r\n\r\n{"Image":"${big}"}`,
      /\}$/,
    );
    expect(oversized).toMatch(/^HTTP\/1.1 413/);
    expect((await client.ping()).toString()).toBe('OK');
  });

  it('drops a client whose headers never finish and keeps serving', async () => {
    const started = Date.now();
    const answer = await raw('GET /_ping HTTP/1.1\r\nX-Slow: 1\r\n', undefined, 30_000);
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await client.ping()).toString()).toBe('OK');
  });

  it('survives clients that leave during logs, attach and pull', async () => {
    await dockerOk(cluster.host, [
      'run',
      '-d',
      '--name',
      'noisy',
      'busybox:local',
      'sh',
      '-c',
      'while true; do echo noise; sleep 0.05; done',
    ]);
    const logs = await raw('GET /containers/noisy/logs?follow=1&stdout=1 HTTP/1.1\r\nHost: x\r\n\r\n', /noise/);
    expect(logs).toContain('noise');
    const attach = await raw(
      'POST /containers/noisy/attach?stream=1&stdout=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n',
      /noise/,
    );
    expect(attach).toMatch(/^HTTP\/1.1 101/);
    await dockerOk(cluster.host, ['tag', 'busybox:local', `${registry.addr}/left:1`]);
    await dockerOk(cluster.host, ['push', `${registry.addr}/left:1`]);
    const pull = await raw(
      `POST /images/create?fromImage=${registry.addr}/left&tag=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`,
      /node4/,
    );
    expect(pull).toMatch(/^HTTP\/1.1 200/);
    await sleep(500);
    expect((await client.ping()).toString()).toBe('OK');
    expect((await dockerOk(cluster.host, ['ps', '--filter', 'name=noisy', '--format', '{{.Status}}'])).trim()).toMatch(/^Up/);
  });
});

describe('swarm endpoints on the manager', () => {
  async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it('explains placements with the real scheduler, placeable or not', async () => {
    const placeable = await post('/_swarm/v1/explain', { Image: 'busybox:local', Env: ['constraint:node==node41'] });
    expect(placeable.status).toBe(200);
    expect(placeable.json.chosen).toBe('node41');
    expect(placeable.json.nodes).toHaveLength(2);
    const impossible = await post('/_swarm/v1/explain', { Image: 'busybox:local', Env: ['constraint:node==nowhere'] });
    expect(impossible.status).toBe(200);
    expect(impossible.json.chosen).toBeUndefined();
    expect(String(impossible.json.summary)).toMatch(/^0\/2 nodes are available/);
    const malformed = await post('/_swarm/v1/explain', { NoImage: true });
    expect(malformed.status).toBe(400);
  });

  it('exposes request, scheduling and node metrics', async () => {
    const text = await (await fetch(`http://127.0.0.1:${port}/_swarm/metrics`)).text();
    expect(text).toMatch(/swarm_api_requests_total\{method="POST",route="\/containers\/create",status="201"\} [1-9]/);
    expect(text).toMatch(/swarm_scheduling_decisions_total\{kind="container",result="scheduled"\} [1-9]/);
    expect(text).toContain('swarm_nodes{status="healthy"} 2');
    expect(text).toContain('swarm_node_healthy{node="node40"} 1');
  });
});
