import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { HollowEngine } from '@swarm/core/hollow';
import { EngineClient, EventRecorder, shapeDifferences } from '../bench/hollow/index.js';

// The same calls against a real dockerd (engine 95) and a hollow engine: the answers must have
// the same shapes, the same statuses and errors, and the lifecycle the same events.
const run = promisify(execFile);
const HOLLOW_HOST = '127.0.9.250';
const COMMAND = ['sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait"];

interface Side {
  label: string;
  host: string;
  port: number;
  client: EngineClient;
}

let testbed: Testbed;
let hollow: HollowEngine;
let sides: [Side, Side];

const docker = async (side: Side, args: string[]): Promise<string> =>
  (await run('docker', ['-H', `tcp://${side.host}:${side.port}`, ...args])).stdout.trim();

async function both<T>(call: (side: Side) => Promise<T>): Promise<[T, T]> {
  return [await call(sides[0]), await call(sides[1])];
}

async function sameShape(method: string, path: string, body?: unknown): Promise<void> {
  const [real, fake] = await both((side) => side.client.call(method, path, body));
  expect(fake.status, `${method} ${path}`).toBe(real.status);
  expect(fake.headers['content-type'], `${method} ${path}`).toBe(real.headers['content-type']);
  expect(shapeDifferences(JSON.parse(real.body), JSON.parse(fake.body)), `${method} ${path}`).toEqual([]);
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 95, count: 1, labels: ['zone=a'] });
  const engine = testbed.engines[0]!;
  hollow = await new HollowEngine({ name: 'hollow-conformance', host: HOLLOW_HOST, port: 2375, labels: ['zone=a'], delayMs: 0 }).start();
  sides = [
    { label: 'real', host: engine.host, port: engine.port, client: new EngineClient(engine.host, engine.port) },
    { label: 'hollow', host: HOLLOW_HOST, port: hollow.port, client: new EngineClient(HOLLOW_HOST, hollow.port) },
  ];
});

afterAll(async () => {
  for (const side of sides ?? []) {
    await side.client.call('DELETE', '/v1.41/containers/conf-api?force=1').catch(() => undefined);
    await docker(side, ['rm', '-f', 'conf-cli']).catch(() => undefined);
    side.client.close();
  }
  await hollow?.stop();
  await testbed?.stop();
});

describe('a hollow engine answers like a real dockerd 20.10', () => {
  it('_ping, version, info, images, networks and volumes have the real shapes and headers', async () => {
    const [real, fake] = await both((side) => side.client.call('GET', '/_ping'));
    expect(fake.body).toBe(real.body);
    expect(fake.headers['api-version']).toBe(real.headers['api-version']);
    expect(fake.headers['ostype']).toBe(real.headers['ostype']);
    for (const path of ['/v1.41/version', '/v1.41/info', '/v1.41/images/json', '/v1.41/volumes', '/v1.41/images/busybox:local/json']) {
      await sameShape('GET', path);
    }
    // dockerd lists networks in map order, so compare them by name
    const byName = (list: { Name: string }[]) => Object.fromEntries(list.map((network) => [network.Name, network]));
    const [realNetworks, fakeNetworks] = await both(async (side) =>
      byName(await side.client.json<{ Name: string }[]>('GET', '/v1.41/networks')),
    );
    expect(Object.keys(fakeNetworks).sort()).toEqual(Object.keys(realNetworks).sort());
    for (const name of Object.keys(realNetworks))
      expect(shapeDifferences(realNetworks[name], fakeNetworks[name]), `network ${name}`).toEqual([]);
    const [realInfo, fakeInfo] = await both((side) => side.client.json<{ Labels: string[]; NCPU: number }>('GET', '/v1.41/info'));
    expect(fakeInfo.Labels).toEqual(realInfo.Labels);
    expect(fakeInfo.NCPU).toBeGreaterThan(0);
  });

  it('containers created, started, stopped and removed answer with the real shapes and events', async () => {
    const recorders = await both((side) => EventRecorder.follow(side.host, side.port));
    const body = {
      Image: 'busybox:local',
      Cmd: COMMAND,
      Labels: { a: 'b' },
      Env: ['X=1'],
      ExposedPorts: { '80/tcp': {} },
      HostConfig: { PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '18080' }] } },
    };
    await sameShape('POST', '/v1.41/containers/create?name=conf-api', body);
    await sameShape('GET', '/v1.41/containers/conf-api/json');
    await sameShape('GET', '/v1.41/containers/json?all=1&size=1');
    expect((await both((side) => side.client.call('POST', '/v1.41/containers/conf-api/start'))).map((a) => a.status)).toEqual([204, 204]);
    await sameShape('GET', '/v1.41/containers/conf-api/json?size=1');
    await sameShape('GET', '/v1.41/containers/json?size=1&filters=%7B%22label%22%3A%7B%22a%3Db%22%3Atrue%7D%7D');
    await sameShape('GET', '/v1.41/networks/bridge');
    expect((await both((side) => side.client.call('POST', '/v1.41/containers/conf-api/stop?t=10'))).map((a) => a.status)).toEqual([
      204, 204,
    ]);
    await sameShape('GET', '/v1.41/containers/conf-api/json');
    await sameShape('GET', '/v1.41/containers/json?all=1');
    expect((await both((side) => side.client.call('DELETE', '/v1.41/containers/conf-api'))).map((a) => a.status)).toEqual([204, 204]);

    await Promise.all(recorders.map((recorder) => recorder.waitFor((event) => event['Action'] === 'destroy')));
    for (const recorder of recorders) recorder.close();
    const [realEvents, fakeEvents] = recorders.map((recorder) => recorder.events);
    const sequence = (events: Record<string, unknown>[] = []) =>
      events.map(
        (event) =>
          `${String(event['Type'])}:${String(event['Action'])}:${Object.keys((event['Actor'] as { Attributes: object }).Attributes).join(',')}`,
      );
    expect(sequence(fakeEvents)).toEqual(sequence(realEvents));
    realEvents!.forEach((event, index) => expect(shapeDifferences(event, fakeEvents![index]), `event ${index}`).toEqual([]));
    expect(fakeEvents!.map((event) => event['timeNano'])).toSatisfy((nanos: unknown[]) =>
      nanos.every((value) => typeof value === 'number' && value > 1e18),
    );
  });

  it('errors carry the real statuses and messages', async () => {
    const normalize = (text: string, side: Side) => text.replaceAll(/[0-9a-f]{64}/g, '<id>').replaceAll(side.host, '<host>');
    const cases: [string, string, unknown?][] = [
      ['GET', '/v1.41/containers/nope/json'],
      ['POST', '/v1.41/containers/nope/start'],
      ['POST', '/v1.41/containers/create', { Image: 'nope:1', Cmd: ['true'] }],
      ['POST', '/v1.41/containers/create', { Image: 'busybox:local' }],
      ['POST', '/v1.41/containers/create?name=bad%2Fname', { Image: 'busybox:local', Cmd: ['true'] }],
      ['GET', '/v1.41/no/such/route'],
      ['GET', '/v1.99/version'],
    ];
    for (const [method, path, body] of cases) {
      const [real, fake] = await both((side) => side.client.call(method, path, body));
      expect({ status: fake.status, body: normalize(fake.body, sides[1]) }, `${method} ${path}`).toEqual({
        status: real.status,
        body: normalize(real.body, sides[0]),
      });
    }
    await both((side) => side.client.call('POST', '/v1.41/containers/create?name=conf-api', { Image: 'busybox:local', Cmd: COMMAND }));
    const lifecycle: [string, string][] = [
      ['POST', '/v1.41/containers/conf-api/kill'],
      ['POST', '/v1.41/containers/create?name=conf-api'],
      ['POST', '/v1.41/containers/conf-api/start'],
      ['POST', '/v1.41/containers/conf-api/start'],
      ['DELETE', '/v1.41/containers/conf-api'],
      ['POST', '/v1.41/containers/conf-api/kill?signal=SIGKILL'],
      ['POST', '/v1.41/containers/conf-api/stop'],
    ];
    for (const [method, path] of lifecycle) {
      const body = path.includes('create') ? { Image: 'busybox:local', Cmd: COMMAND } : undefined;
      const [real, fake] = await both((side) => side.client.call(method, path, body));
      expect({ status: fake.status, body: normalize(fake.body, sides[1]) }, `${method} ${path}`).toEqual({
        status: real.status,
        body: normalize(real.body, sides[0]),
      });
    }
    await both((side) => side.client.call('DELETE', '/v1.41/containers/conf-api'));
  });

  it('the docker CLI sees the same things on both', async () => {
    const args = ['run', '-d', '--name', 'conf-cli', '-l', 'tier=web', '-p', '18081:80', 'busybox:local', 'sleep', '300'];
    const ids = await both((side) => docker(side, args));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{64}$/);
    const format = ['--format', '{{.Names}} {{.Image}} {{.Command}} {{.Labels}}'];
    const [realPs, fakePs] = await both((side) => docker(side, ['ps', '--filter', 'name=conf-cli', ...format]));
    expect(fakePs).toBe(realPs);
    const [realPorts, fakePorts] = await both(async (side) => (await docker(side, ['port', 'conf-cli'])).replaceAll(side.host, '<host>'));
    expect(fakePorts).toBe(realPorts);
    const inspect = [
      'inspect',
      '--format',
      '{{.State.Status}} {{.Config.Labels}} {{.HostConfig.PortBindings}} {{len .NetworkSettings.Networks}}',
      'conf-cli',
    ];
    const [realInspect, fakeInspect] = await both((side) => docker(side, inspect));
    expect(fakeInspect).toBe(realInspect);
    const [realRaw, fakeRaw] = await both(async (side) => JSON.parse(await docker(side, ['inspect', 'conf-cli'])) as unknown);
    expect(shapeDifferences(realRaw, fakeRaw)).toEqual([]);
    await both((side) => docker(side, ['rm', '-f', 'conf-cli']));
    const [realAfter, fakeAfter] = await both((side) => docker(side, ['ps', '-a', '--filter', 'name=conf-cli', '-q']));
    expect([realAfter, fakeAfter]).toEqual(['', '']);
  });
});
