import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HollowEngine } from '@swarm/core/hollow';
import { EngineClient, EventRecorder } from '../bench/hollow/index.js';

const HOST = '127.0.9.240';
const SLEEPER = { Image: 'busybox:local', Cmd: ['sleep', '300'] };

interface Summary {
  Id: string;
  Names: string[];
  State: string;
  Status: string;
  Labels: Record<string, string>;
  Ports: { IP?: string; PrivatePort: number; PublicPort?: number; Type: string }[];
}

let engine: HollowEngine;
let client: EngineClient;

beforeAll(async () => {
  engine = await new HollowEngine({
    name: 'unit-hollow',
    host: HOST,
    labels: ['zone=b', 'disk=ssd'],
    ncpu: 8,
    memTotal: 2 ** 33,
    delayMs: 0,
  }).start();
  client = new EngineClient(HOST, engine.port);
});

afterAll(async () => {
  client?.close();
  await engine?.stop();
});

const create = async (name: string, body: Record<string, unknown> = SLEEPER): Promise<string> =>
  (await client.json<{ Id: string }>('POST', `/v1.41/containers/create?name=${name}`, body)).Id;
const names = (list: Summary[]): string[] => list.map((summary) => summary.Names[0] ?? '');

describe('hollow engine', () => {
  it('reports its identity, resources and labels in info', async () => {
    const info = await client.json<{ ID: string; Name: string; NCPU: number; MemTotal: number; Labels: string[] }>('GET', '/info');
    expect(info).toMatchObject({ Name: 'unit-hollow', NCPU: 8, MemTotal: 2 ** 33, Labels: ['zone=b', 'disk=ssd'] });
    expect(info.ID).toMatch(/^([A-Z2-7]{4}:){11}[A-Z2-7]{4}$/);
    const again = new HollowEngine({ name: 'unit-hollow', host: HOST });
    expect(again.state.identity.id).toBe(info.ID);
  });

  it('runs the container lifecycle with the statuses a real engine answers', async () => {
    const id = await create('life');
    expect((await client.call('POST', '/containers/life/start')).status).toBe(204);
    expect((await client.call('POST', '/containers/life/start')).status).toBe(304);
    expect(
      (await client.json<{ State: { Running: boolean; Pid: number } }>('GET', `/containers/${id.slice(0, 10)}/json`)).State,
    ).toMatchObject({ Running: true });
    expect((await client.call('DELETE', '/containers/life')).status).toBe(409);
    expect((await client.call('POST', '/containers/life/stop')).status).toBe(204);
    expect((await client.call('POST', '/containers/life/stop')).status).toBe(304);
    const stopped = await client.json<{ State: { Status: string; ExitCode: number; FinishedAt: string } }>('GET', '/containers/life/json');
    expect(stopped.State).toMatchObject({ Status: 'exited', ExitCode: 0 });
    expect(stopped.State.FinishedAt).not.toBe('0001-01-01T00:00:00Z');
    expect((await client.call('POST', '/containers/life/kill')).status).toBe(409);
    expect((await client.call('DELETE', '/containers/life')).status).toBe(204);
    expect((await client.call('GET', '/containers/life/json')).status).toBe(404);
  });

  it('streams the events a lifecycle causes, in the real order, and replays them with since/until', async () => {
    const since = Math.floor(Date.now() / 1000);
    const recorder = await EventRecorder.follow(HOST, engine.port, `?filters=${encodeURIComponent('{"type":["container"]}')}`);
    await create('evented', { ...SLEEPER, Labels: { team: 'x' } });
    await client.call('POST', '/containers/evented/start');
    await client.call('POST', '/containers/evented/kill?signal=SIGTERM');
    await client.call('DELETE', '/containers/evented');
    await recorder.waitFor((event) => event['Action'] === 'destroy');
    recorder.close();
    expect(recorder.events.map((event) => event['Action'])).toEqual(['create', 'start', 'kill', 'die', 'destroy']);
    const kill = recorder.events[2] as { Actor: { Attributes: Record<string, string> } };
    expect(kill.Actor.Attributes).toEqual({ image: 'busybox:local', name: 'evented', signal: '15', team: 'x' });
    expect((recorder.events[3] as { Actor: { Attributes: Record<string, string> } }).Actor.Attributes['exitCode']).toBe('143');

    const replay = await client.call(
      'GET',
      `/events?since=${since}&until=${Math.floor(Date.now() / 1000) + 1}&filters=${encodeURIComponent('{"container":{"evented":true}}')}`,
    );
    const lines = replay.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { Type: string; Action: string });
    expect(lines.map((event) => `${event.Type}:${event.Action}`)).toEqual([
      'container:create',
      'container:start',
      'container:kill',
      'container:die',
      'container:destroy',
    ]);
  });

  it('lists newest first and honours all, limit and the filters swarm sends', async () => {
    await create('web1', { ...SLEEPER, Labels: { role: 'web' } });
    await create('db1', { ...SLEEPER, Labels: { role: 'db' } });
    await client.call('POST', '/containers/web1/start');
    expect(names(await client.json<Summary[]>('GET', '/containers/json'))).toEqual(['/web1']);
    expect(names(await client.json<Summary[]>('GET', '/containers/json?all=1'))).toEqual(['/db1', '/web1']);
    expect(names(await client.json<Summary[]>('GET', '/containers/json?all=1&limit=1'))).toEqual(['/db1']);
    const byLabel = encodeURIComponent(JSON.stringify({ label: { 'role=db': true } }));
    expect(names(await client.json<Summary[]>('GET', `/containers/json?all=1&filters=${byLabel}`))).toEqual(['/db1']);
    const byStatus = encodeURIComponent(JSON.stringify({ status: ['created'] }));
    expect(names(await client.json<Summary[]>('GET', `/containers/json?filters=${byStatus}`))).toEqual(['/db1']);
    const byName = encodeURIComponent(JSON.stringify({ name: ['web'] }));
    expect(names(await client.json<Summary[]>('GET', `/containers/json?all=1&filters=${byName}`))).toEqual(['/web1']);
    expect((await client.call('GET', `/containers/json?filters=${encodeURIComponent('{"status":["sleeping"]}')}`)).status).toBe(400);
    await client.call('DELETE', '/containers/web1?force=1');
    await client.call('DELETE', '/containers/db1');
  });

  it('publishes ports on its own address and refuses a port already taken', async () => {
    const published = {
      ...SLEEPER,
      HostConfig: { PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '8080' }], '443/tcp': [{ HostPort: '' }] } },
    };
    await create('port1', published);
    await create('port2', published);
    await client.call('POST', '/containers/port1/start');
    const [summary] = await client.json<Summary[]>('GET', `/containers/json?filters=${encodeURIComponent('{"name":["port1"]}')}`);
    expect(summary?.Ports).toContainEqual({ IP: HOST, PrivatePort: 80, PublicPort: 8080, Type: 'tcp' });
    expect(summary?.Ports.find((port) => port.PrivatePort === 443)?.PublicPort).toBeGreaterThanOrEqual(32768);
    const refused = await client.call('POST', '/containers/port2/start');
    expect(refused.status).toBe(500);
    expect(refused.body).toContain(`Bind for ${HOST}:8080 failed: port is already allocated`);
    await client.call('POST', '/containers/port1/stop');
    expect((await client.call('POST', '/containers/port2/start')).status).toBe(204);
    await client.call('DELETE', '/containers/port1');
    await client.call('DELETE', '/containers/port2?force=1');
  });

  it('answers wait when the container exits', async () => {
    await create('waited');
    await client.call('POST', '/containers/waited/start');
    const waiting = client.call('POST', '/containers/waited/wait?condition=next-exit');
    await client.call('POST', '/containers/waited/kill');
    const answer = await waiting;
    expect(JSON.parse(answer.body)).toEqual({ Error: null, StatusCode: 137 });
    await client.call('DELETE', '/containers/waited');
  });

  it('waits the configured delay before answering', async () => {
    const slow = await new HollowEngine({ name: 'unit-slow', host: HOST, delayMs: { info: 80, ping: 0 } }).start();
    const slowClient = new EngineClient(HOST, slow.port);
    try {
      const started = performance.now();
      await slowClient.call('GET', '/info');
      expect(performance.now() - started).toBeGreaterThanOrEqual(75);
      const pingStarted = performance.now();
      await slowClient.call('GET', '/_ping');
      expect(performance.now() - pingStarted).toBeLessThan(75);
      expect(slow.delays.create).toBeGreaterThan(0);
    } finally {
      slowClient.close();
      await slow.stop();
    }
  });
});
