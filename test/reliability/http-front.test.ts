import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerOk, sleep, startApiCluster, startRegistry, type ApiCluster, type Registry } from '../e2e/api-support.js';
import { firstBytes, openWith, rawRequest, requestText, type Address } from './raw-http.js';

// Engines 180-181 behind `swarm manage` on port 26140, a local registry on 26141, and an
// authorization-style proxy (allows only /containers/...) on a free port.
// Indexes 180-181 and ports 26140-26149 belong to this file.
const MANAGER_PORT = 26140;
const REGISTRY_PORT = 26141;
const MANAGER: Address = { host: '127.0.0.1', port: MANAGER_PORT };
const ENGINE: Address = { host: '127.0.0.181', port: 2375 };

let cluster: ApiCluster;
let registry: Registry;
let host: string;

beforeAll(async () => {
  [cluster, registry] = await Promise.all([startApiCluster(180, 2, MANAGER_PORT), startRegistry(REGISTRY_PORT)]);
  host = cluster.host;
  await dockerOk(host, ['run', '-d', '--name', 'front', '-e', 'constraint:node==node180', 'busybox:local', 'sleep', '3600']);
  const engine = `tcp://${ENGINE.host}:${ENGINE.port}`;
  await dockerOk(engine, ['tag', 'busybox:local', `${registry.addr}/bb:1`]);
  await dockerOk(engine, ['push', `${registry.addr}/bb:1`]);
});

afterAll(async () => {
  await cluster?.stop();
  await registry?.stop();
});

/** What the manager answers and what dockerd answers to the same raw request. */
async function sideBySide(method: string, target: string, body?: string) {
  const text = requestText(method, target, body);
  const [front, engine] = await Promise.all([rawRequest(MANAGER, text), rawRequest(ENGINE, text)]);
  return { front, engine };
}

function expectManagerAlive(): void {
  expect(cluster.manager.running(), cluster.manager.output()).toBe(true);
  expect(cluster.manager.output()).not.toMatch(/uncaught exception|unhandled rejection|failed outside its handler/);
}

describe('request paths as dockerd reads them', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['POST', '/containers/x/../../images/busybox:local/tag?repo=pwnedtag&tag=t2'],
    ['POST', '/containers/x/..%2F..%2Fvolumes/create'],
    ['GET', '/plugins/..%2F..%2Finfo/json'],
    ['GET', '//'],
    ['GET', '//info'],
    ['GET', '/v1.41//info'],
    ['GET', '/./info'],
    ['GET', '/info/.'],
    ['GET', '/containers/json/'],
    ['GET', '/v1.41/containers/json/'],
    ['GET', '/%2e%2e/info'],
  ];

  it('redirects `..`, `.`, `//` and encoded slashes to the clean path (301, same Location) and does nothing', async () => {
    for (const [method, target] of cases) {
      const { front, engine } = await sideBySide(method, target, method === 'POST' ? '{"Name":"pwnedvol"}' : undefined);
      expect({ target, status: front.status, location: front.headers.location }).toEqual({
        target,
        status: engine.status,
        location: engine.headers.location,
      });
    }
    const images = await dockerOk(host, ['images', '--format', '{{.Repository}}:{{.Tag}}']);
    expect(images).not.toContain('pwnedtag');
    expect(await dockerOk(host, ['volume', 'ls', '-q'])).not.toContain('pwnedvol');
  });

  it('refuses a bad escape with 400 in JSON, and answers CONNECT with 404 as dockerd does', async () => {
    const escape = await rawRequest(MANAGER, requestText('GET', '/containers/%zz/json'));
    expect(escape.status).toBe(400);
    expect(JSON.parse(escape.body)).toEqual({ message: 'invalid URL escape "%zz"' });
    const query = await rawRequest(MANAGER, requestText('GET', '/containers/json?filters=%zz'));
    expect(query.status).toBe(400);
    const { front, engine } = await sideBySide('CONNECT', '/x');
    expect(front.status).toBe(404);
    expect(front.status).toBe(engine.status);
    expect(JSON.parse(front.body)).toEqual({ message: 'page not found' });
  });

  it('keeps names with `/`, `?` and `%` inside one path segment when forwarding', async () => {
    await dockerOk(host, ['tag', 'busybox:local', 'team/app:v1']);
    expect(await dockerOk(host, ['image', 'inspect', '--format', '{{.Id}}', 'team/app:v1'])).toMatch(/^sha256:/);
    for (const [target, message] of [
      ['/images/busybox%3Flocal/json', 'No such image: busybox?local'],
      ['/containers/front%3Fx/json', 'No such container: front?x'],
    ] as const) {
      const answer = await rawRequest(MANAGER, requestText('GET', target));
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toEqual({ message });
    }
    const plugin = await rawRequest(MANAGER, requestText('GET', '/plugins/x%3Fy%2Fz/json'));
    expect(plugin.status).toBe(404);
    expect(JSON.parse(plugin.body)).toHaveProperty('message');
    await dockerOk(host, ['rmi', 'team/app:v1']);
  });
});

describe('an authorization proxy that allows by path prefix', () => {
  let proxy: Server;
  let proxyAddress: Address;

  beforeAll(async () => {
    // Allows only /containers/...: what an operator's access rule in front of the API may look like.
    proxy = createServer((req, res) => {
      const target = req.url ?? '/';
      if (!/^(\/v[\d.]+)?\/containers\//.test(target)) {
        res.writeHead(403, { 'Content-Type': 'application/json' });
        res.end('{"message":"denied by proxy"}');
        return;
      }
      const upstream = httpRequest(
        { host: '127.0.0.1', port: MANAGER_PORT, method: req.method, path: target, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyAddress = { host: '127.0.0.1', port: (proxy.address() as AddressInfo).port };
  });

  afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  it('cannot be bypassed with `..`, `%2e%2e` or `..%2F` behind an allowed prefix', async () => {
    const body = '{"Name":"bypassvol"}';
    for (const target of [
      '/containers/x/../../volumes/create',
      '/containers/x/%2e%2e/%2e%2e/volumes/create',
      '/containers/..%2F..%2Fvolumes/create',
    ]) {
      const answer = await rawRequest(proxyAddress, requestText('POST', target, body));
      expect({ target, status: answer.status }).toEqual({ target, status: 301 });
    }
    const denied = await rawRequest(proxyAddress, requestText('POST', '/volumes/create', body));
    expect(denied.status).toBe(403);
    expect(await dockerOk(host, ['volume', 'ls', '-q'])).not.toContain('bypassvol');
  });
});

describe('request bodies of the wrong type', () => {
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ['/containers/create', { Image: 'busybox:local', Env: 5 }, 'json: cannot unmarshal number into Go struct field Env of type []string'],
    [
      '/containers/create',
      { Image: 'busybox:local', HostConfig: { NetworkMode: {} } },
      'json: cannot unmarshal object into Go struct field HostConfig.NetworkMode of type string',
    ],
    [
      '/containers/create',
      { Image: 'busybox:local', HostConfig: { Memory: 1.5 } },
      'json: cannot unmarshal number 1.5 into Go struct field HostConfig.Memory of type int64',
    ],
    [
      '/containers/create',
      { Image: 'busybox:local', HostConfig: { PortBindings: { '80/tcp': [{ HostPort: 80 }] } } },
      'json: cannot unmarshal number into Go struct field HostConfig.PortBindings.80/tcp.0.HostPort of type string',
    ],
    [
      '/containers/create',
      { Image: 'busybox:local', Cmd: [1] },
      'json: cannot unmarshal array into Go struct field Cmd of type strslice.StrSlice',
    ],
    ['/volumes/create', { Name: 1.5 }, 'json: cannot unmarshal number into Go struct field Name of type string'],
    [
      '/networks/create',
      { Name: 'n', IPAM: { Config: [{ Subnet: 5 }] } },
      'json: cannot unmarshal number into Go struct field IPAM.Config.0.Subnet of type string',
    ],
    [
      '/networks/node180%2Fbridge/connect',
      { Container: 'front', EndpointConfig: { Aliases: 'a' } },
      'json: cannot unmarshal string into Go struct field EndpointConfig.Aliases of type []string',
    ],
    ['/containers/front/exec', { Cmd: ['true'], Env: 'A=1' }, 'json: cannot unmarshal string into Go struct field Env of type []string'],
  ];

  it('answers 400 with the field path and the expected type, and creates nothing', async () => {
    const before = await dockerOk(host, ['ps', '-aq']);
    for (const [path, body, message] of cases) {
      const answer = await rawRequest(MANAGER, requestText('POST', path, JSON.stringify(body)));
      expect({ path, status: answer.status, body: JSON.parse(answer.body) as unknown }).toEqual({ path, status: 400, body: { message } });
    }
    expect(await dockerOk(host, ['ps', '-aq'])).toBe(before);
    const nulls = await rawRequest(MANAGER, requestText('POST', '/volumes/create', '{"Name":"nullsvol","Labels":null,"DriverOpts":null}'));
    expect(nulls.status).toBe(201);
  });
});

describe('bodies over the limit', () => {
  it('answers a 5 MB chunked body with 413 and stays up', async () => {
    for (let round = 0; round < 3; round++) {
      const socket = await openWith(
        MANAGER,
        'POST /volumes/create HTTP/1.1\r\nHost: swarm\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const answer = firstBytes(socket);
      const chunk = 'A'.repeat(64 * 1024);
      for (let sent = 0; sent < 5_000_000 && !socket.destroyed; sent += chunk.length) {
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      }
      expect(await answer).toMatch(/^HTTP\/1\.1 413 /);
      socket.destroy();
    }
    await sleep(3000);
    expect((await fetch(`http://127.0.0.1:${MANAGER_PORT}/_ping`)).status).toBe(200);
    expectManagerAlive();
  });

  it('answers a 200 MB body with Content-Length with a readable 413, not a reset', async () => {
    const socket = await openWith(
      MANAGER,
      'POST /containers/create HTTP/1.1\r\nHost: swarm\r\nContent-Type: application/json\r\nContent-Length: 200000000\r\n\r\n',
    );
    const answer = firstBytes(socket);
    const chunk = Buffer.alloc(1024 * 1024, 0x41);
    for (let sent = 0; sent < 200 && !socket.destroyed; sent++) {
      if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve));
      if (sent === 8) break;
    }
    const text = await answer;
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toContain('request body too large: 200000000 bytes, the limit is 4194304');
  });
});

interface StreamingRoute {
  name: string;
  head: () => Promise<string>;
  /** Bytes of the request body to send before hanging up mid-body, when the route takes one. */
  body?: Buffer;
}

function upgradeHead(method: string, target: string, body: string): string {
  return (
    `${method} ${target} HTTP/1.1\r\nHost: swarm\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

describe('clients that hang up', () => {
  const streaming: StreamingRoute[] = [
    { name: 'logs', head: async () => requestText('GET', '/containers/front/logs?stdout=1&stderr=1&follow=1') },
    { name: 'events', head: async () => requestText('GET', '/events') },
    { name: 'stats', head: async () => requestText('GET', '/containers/front/stats') },
    { name: 'export', head: async () => requestText('GET', '/containers/front/export') },
    { name: 'archive get', head: async () => requestText('GET', '/containers/front/archive?path=/bin') },
    { name: 'attach', head: async () => upgradeHead('POST', '/containers/front/attach?stream=1&stdout=1&stderr=1', '') },
    {
      name: 'exec start',
      head: async () => {
        const created = await rawRequest(
          MANAGER,
          requestText('POST', '/containers/front/exec', '{"Cmd":["sh","-c","seq 1 100000; sleep 5"],"AttachStdout":true}'),
        );
        const id = (JSON.parse(created.body) as { Id: string }).Id;
        return upgradeHead('POST', `/exec/${id}/start`, '{"Detach":false,"Tty":false}');
      },
    },
    { name: 'pull', head: async () => requestText('POST', `/images/create?fromImage=${registry.addr}/bb&tag=1`) },
    {
      name: 'build',
      head: async () =>
        'POST /build?t=hangup HTTP/1.1\r\nHost: swarm\r\nContent-Type: application/x-tar\r\nContent-Length: 1048576\r\n\r\n',
      body: Buffer.alloc(4096),
    },
    {
      name: 'archive put',
      head: async () =>
        'PUT /containers/front/archive?path=/tmp HTTP/1.1\r\nHost: swarm\r\nContent-Type: application/x-tar\r\nContent-Length: 1048576\r\n\r\n',
      body: Buffer.alloc(4096),
    },
  ];
  const stages = ['in the request line', 'after the headers', 'mid-body', 'at the first answer bytes', 'mid-stream'] as const;

  it('never takes the manager down, at any stage of any streaming route', async () => {
    for (const route of streaming) {
      for (const stage of stages) {
        if (stage === 'mid-body' && !route.body) continue;
        const head = await route.head();
        const part = stage === 'in the request line' ? head.slice(0, head.indexOf('\r\n') - 3) : head;
        const socket = await openWith(MANAGER, part);
        if (stage === 'mid-body') socket.write(route.body!);
        if (stage === 'at the first answer bytes') await firstBytes(socket, 5000);
        if (stage === 'mid-stream') {
          await firstBytes(socket, 5000);
          await sleep(150);
        }
        socket.destroy();
      }
    }
    await sleep(1000);
    const ping = await fetch(`http://127.0.0.1:${MANAGER_PORT}/_ping`);
    expect(await ping.text()).toBe('OK');
    expect((await docker(host, ['ps', '--filter', 'name=front', '-q'])).stdout.trim()).not.toBe('');
    expectManagerAlive();
  });
});
