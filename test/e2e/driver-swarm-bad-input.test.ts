import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import type { SwarmCluster } from '../../plugins/driver-swarm/src/swarm-cluster.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Swarm } from '@swarm/core';
import { buildSwarm, nodeRows } from './driver-swarm-support.js';

// engine 17; fake servers on 127.0.0.1:23301-23303 (23303 is left closed), a TCP proxy to the
// engine on 23304 (the same engine ID under a second address), a server stalling mid-answer on 23305
const FIRST = 17;
const NOT_DOCKER = '127.0.0.1:23301';
const HANGS = '127.0.0.1:23302';
const NOBODY = '127.0.0.1:23303';
const CLONE = '127.0.0.1:23304';
const STALLS = '127.0.0.1:23305';

function listen(server: HttpServer | TcpServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

describe('driver-swarm with addresses that are not healthy engines', () => {
  let testbed: Testbed;
  let swarm: Swarm;
  let cluster: SwarmCluster;
  let startMs = 0;
  const sockets: Socket[] = [];
  const web = createHttpServer((_request, response) => {
    response.writeHead(404, { 'Content-Type': 'text/plain' });
    response.end('404 page not found\n');
  });
  const silent = createTcpServer((socket) => sockets.push(socket));
  // answers headers and half a body, then nothing
  const stalling = createHttpServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.write('{"ID":');
    sockets.push(response.socket!);
  });
  const proxy = createTcpServer((client) => {
    const upstream = connect(2375, `127.0.0.${FIRST + 1}`);
    sockets.push(client, upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 1 });
    await listen(web, 23301);
    await listen(silent, 23302);
    await listen(proxy, 23304);
    await listen(stalling, 23305);
    const uri = [testbed.engines[0]!.addr, NOT_DOCKER, HANGS, NOBODY, CLONE, STALLS].join(',');
    ({ swarm, cluster } = await buildSwarm(`nodes://${uri}`, { options: { 'swarm.requesttimeout': '1' } }));
    const started = Date.now();
    await swarm.start();
    startMs = Date.now() - started;
  });

  afterAll(async () => {
    await swarm?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => web.close(resolve));
    await new Promise((resolve) => silent.close(resolve));
    await new Promise((resolve) => proxy.close(resolve));
    await new Promise((resolve) => stalling.close(resolve));
    await testbed?.stop();
  });

  const rowsOf = (addr: string) => {
    const rows = cluster.info().systemStatus;
    const at = rows.findIndex(([key, value]) => key.startsWith(' ') && value === addr);
    return nodeRows(rows.slice(at), rows[at]![0].slice(1));
  };

  it('starts within the request timeout even when an engine hangs', () => {
    expect(startMs).toBeLessThan(3_000);
  });

  it('gives each bad address a Pending row with a clear error', () => {
    expect(rowsOf(NOT_DOCKER).get('Status')).toBe('Pending');
    expect(rowsOf(NOT_DOCKER).get('Error')).toBe(`${NOT_DOCKER} is not a Docker engine: GET /info answered HTTP 404 (404 page not found)`);
    expect(rowsOf(HANGS).get('Status')).toBe('Pending');
    expect(rowsOf(HANGS).get('Error')).toBe(`Cannot connect to the Docker engine endpoint 127.0.0.1:23302: no answer within 1 s`);
    expect(rowsOf(NOBODY).get('Status')).toBe('Pending');
    expect(rowsOf(NOBODY).get('Error')).toMatch(/^Cannot connect to the Docker engine endpoint 127\.0\.0\.1:23303: connect ECONNREFUSED/);
    expect(rowsOf(STALLS).get('Error')).toBe(`Cannot connect to the Docker engine endpoint 127.0.0.1:23305: no answer within 1 s`);
    expect(cluster.info().systemStatus.find(([key]) => key === 'Nodes')).toEqual(['Nodes', '6']);
  });

  it('reports one engine reached under two addresses as a duplicated ID instead of merging it', () => {
    const addrs = [testbed.engines[0]!.addr, CLONE];
    const healthy = addrs.filter((addr) => rowsOf(addr).get('Status') === 'Healthy');
    expect(healthy).toHaveLength(1);
    const other = addrs.find((addr) => addr !== healthy[0])!;
    const engineId = rowsOf(healthy[0]!).get('ID')!;
    expect(rowsOf(other).get('Status')).toBe('Pending');
    expect(rowsOf(other).get('Error')).toBe(`ID duplicated. ${engineId} shared by this node ${other} and another node ${healthy[0]}`);
  });

  it('keeps serving the real engine', async () => {
    const container = await cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'] }, 'still-works');
    expect(container.node.name).toBe(`node${FIRST}`);
    await cluster.removeContainer(container, { force: true });
  });

  it('refuses invalid cluster options with Swarm classic texts', async () => {
    const fail = async (options: Record<string, string>) => {
      // the driver checks its options when the deployment builds it
      const error = await buildSwarm(`nodes://${NOBODY}`, { options }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(isSwarmError(error, ErrorCodes.CONFIG_INVALID)).toBe(true);
      return (error as Error).message;
    };
    expect(await fail({ 'swarm.overcommit': '-1' })).toContain('swarm.overcommit should be larger than -1, -1.000000 is invalid');
    expect(await fail({ 'swarm.createretry': '-2' })).toContain('swarm.createretry can not be negative, -2 is invalid');
    expect(await fail({ 'swarm.overcommit': 'lots' })).toContain('swarm.overcommit must be a number, "lots" is invalid');
  });
});
