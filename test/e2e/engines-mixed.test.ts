// Indexes 147-149 and ports
// 28910-28911 belong to this file.
// Engines 147-148 run dockerd 20.10 (API 1.41), 149 runs dockerd 26.1 (API 1.45, oldest 1.24).
// One manager sees all three, one sees the 26.1 engine alone: each serves the highest API version
// all its engines support, and the docker CLI 28 negotiates down to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { lockEngineIndexes } from '../harness/index-lock.js';
import { docker, dockerOk } from './api-support.js';

let testbed: Testbed;
let mixed: Manager;
let newest: Manager;
let release: (() => Promise<void>) | undefined;

beforeAll(async () => {
  release = await lockEngineIndexes(147, 540_000);
  testbed = await startTestbed({ first: 147, count: 3, versions: { 149: '26.1' } });
  const newer = testbed.engines.find((engine) => engine.version === '26.1');
  if (!newer) throw new Error('the 26.1 engine did not start');
  [mixed, newest] = await Promise.all([
    startManager({ discovery: testbed.addrs, port: 28910, expectNodes: 3 }),
    startManager({ discovery: newer.addr, port: 28911, expectNodes: 1 }),
  ]);
}, 600_000);

afterAll(async () => {
  await Promise.all([mixed?.stop(), newest?.stop()]);
  await testbed?.stop();
  await release?.();
});

async function versionOf(manager: Manager): Promise<{ ApiVersion: string; MinAPIVersion: string }> {
  const answer = await fetch(`http://127.0.0.1:${manager.port}/version`);
  return (await answer.json()) as { ApiVersion: string; MinAPIVersion: string };
}

async function pingVersion(manager: Manager): Promise<string | null> {
  return (await fetch(`http://127.0.0.1:${manager.port}/_ping`)).headers.get('api-version');
}

async function refusal(manager: Manager, path: string): Promise<{ status: number; message: string }> {
  const answer = await fetch(`http://127.0.0.1:${manager.port}${path}`);
  return { status: answer.status, message: ((await answer.json()) as { message: string }).message };
}

describe('the testbed', () => {
  it('starts each engine with its dockerd', async () => {
    const versions = await Promise.all(
      testbed.engines.map((engine) =>
        dockerOk(`tcp://${engine.addr}`, ['version', '--format', '{{.Server.APIVersion}} {{.Server.MinAPIVersion}}']),
      ),
    );
    expect(testbed.engines.map((engine) => engine.version)).toEqual(['20.10', '20.10', '26.1']);
    expect(versions.map((v) => v.trim())).toEqual(['1.41 1.12', '1.41 1.12', '1.45 1.24']);
  });
});

describe('engines 20.10 and 26.1 in one cluster', () => {
  it('serves API 1.41, the highest all engines support, from 1.24, the oldest all accept', async () => {
    expect(await versionOf(mixed)).toMatchObject({ ApiVersion: '1.41', MinAPIVersion: '1.24' });
    expect(await pingVersion(mixed)).toBe('1.41');
    // the docker CLI 28 (API 1.50) negotiates down to what the manager announces
    expect((await dockerOk(mixed.host, ['version', '--format', '{{.Client.APIVersion}}'])).trim()).toBe('1.41');
  });

  it('refuses versions some engine would refuse, in dockerd words', async () => {
    expect(await refusal(mixed, '/v1.45/info')).toEqual({
      status: 400,
      message: 'client version 1.45 is too new. Maximum supported API version is 1.41',
    });
    expect(await refusal(mixed, '/v1.20/info')).toEqual({
      status: 400,
      message: 'client version 1.20 is too old. Minimum supported API version is 1.24, please upgrade your client to a newer version',
    });
  });

  it('runs, lists, execs, logs and removes containers on every engine', async () => {
    for (const engine of testbed.engines) {
      await dockerOk(mixed.host, [
        'run',
        '-d',
        '--name',
        `mixed-${engine.index}`,
        '-e',
        `constraint:node==${engine.name}`,
        'busybox:local',
        'sh',
        '-c',
        'echo started; sleep 600',
      ]);
    }
    const rows = (await dockerOk(mixed.host, ['ps', '--filter', 'name=mixed-', '--format', '{{.Names}} {{.Status}}']))
      .trim()
      .split('\n')
      .sort();
    expect(rows.map((row) => row.split(' ')[0])).toEqual(['node147/mixed-147', 'node148/mixed-148', 'node149/mixed-149']);
    for (const engine of testbed.engines) {
      expect((await dockerOk(mixed.host, ['exec', `mixed-${engine.index}`, 'echo', 'exec ok'])).trim()).toBe('exec ok');
      expect((await dockerOk(mixed.host, ['inspect', '--format', '{{.Node.Name}}', `mixed-${engine.index}`])).trim()).toBe(engine.name);
      expect((await dockerOk(mixed.host, ['logs', `mixed-${engine.index}`])).trim()).toBe('started');
    }
    await dockerOk(mixed.host, ['rm', '-f', ...testbed.engines.map((engine) => `mixed-${engine.index}`)]);
    expect((await dockerOk(mixed.host, ['ps', '-aq', '--filter', 'name=mixed-'])).trim()).toBe('');
  });

  it('shows each engine with its own server version in docker info', async () => {
    const info = await dockerOk(mixed.host, ['info']);
    expect(info).toMatch(/node149: 127\.0\.0\.150:2375[\s\S]*?ServerVersion: 26\.1\.5/);
    expect(info).toMatch(/node147: 127\.0\.0\.148:2375[\s\S]*?ServerVersion: 20\.10\./);
  });
});

describe('a cluster of 26.1 engines only', () => {
  it('serves API 1.45, and the docker CLI negotiates it', async () => {
    expect(await versionOf(newest)).toMatchObject({ ApiVersion: '1.45', MinAPIVersion: '1.24' });
    expect(await pingVersion(newest)).toBe('1.45');
    expect((await dockerOk(newest.host, ['version', '--format', '{{.Client.APIVersion}}'])).trim()).toBe('1.45');
    const tooNew = await refusal(newest, '/v1.46/info');
    expect(tooNew).toEqual({ status: 400, message: 'client version 1.46 is too new. Maximum supported API version is 1.45' });
  });

  it('creates a container on two networks at once (API 1.44) with a start interval for its healthcheck', async () => {
    await dockerOk(newest.host, ['network', 'create', 'front189']);
    await dockerOk(newest.host, ['network', 'create', 'back189']);
    try {
      await dockerOk(newest.host, [
        'run',
        '-d',
        '--name',
        'two-nets',
        '--network',
        'front189',
        '--network',
        'back189',
        '--health-cmd',
        'true',
        '--health-start-period',
        '10s',
        '--health-start-interval',
        '1s',
        'busybox:local',
        'sleep',
        '600',
      ]);
      const networks = await dockerOk(newest.host, [
        'inspect',
        '--format',
        '{{range $name, $_ := .NetworkSettings.Networks}}{{$name}} {{end}}',
        'two-nets',
      ]);
      expect(networks.trim().split(' ').sort()).toEqual(['back189', 'front189']);
      const interval = await dockerOk(newest.host, ['inspect', '--format', '{{.Config.Healthcheck.StartInterval}}', 'two-nets']);
      expect(interval.trim()).toBe('1s');
    } finally {
      await docker(newest.host, ['rm', '-f', 'two-nets']);
      await docker(newest.host, ['network', 'rm', 'front189', 'back189']);
    }
  });
});
