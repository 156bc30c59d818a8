import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { docker, eventually, watchAnswering } from './driver-swarm-support.js';
import { SWARM_ID, pollAsync, rows, rowsNamed } from './reschedule-support.js';

// engines 26-28, swarm manage on 127.0.0.1:23810; Unhealthy after 2 failed refreshes 1-2 s apart
const FIRST = 26;
const PORT = 23810;

describe('rescheduling containers off a failed node (docker CLI through swarm manage)', () => {
  let testbed: Testbed;
  let manager: Manager;
  const swarm = (...args: string[]) => docker(manager.host, ...args);
  const dead = `node${FIRST}`;
  let webSwarmId = '';

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 3 });
    manager = await startManager({
      discovery: testbed.addrs,
      port: PORT,
      expectNodes: 3,
      args: ['--engine-refresh-min-interval', '1s', '--engine-refresh-max-interval', '2s', '--engine-failure-retry', '2'],
    });
  });

  afterAll(async () => {
    await manager?.stop();
    await testbed?.stop();
  });

  it('refuses invalid policies with Swarm classic texts (HTTP 400)', async () => {
    await expect(
      swarm('run', '-d', '--name', 'bad1', '-l', 'com.docker.swarm.reschedule-policies=["false"]', 'busybox:local', 'true'),
    ).rejects.toThrow('invalid reschedule policy: false');
    await expect(
      swarm(
        'run',
        '-d',
        '--name',
        'bad2',
        '-e',
        'reschedule:off',
        '-l',
        'com.docker.swarm.reschedule-policies=["on-node-failure"]',
        'busybox:local',
        'true',
      ),
    ).rejects.toThrow('too many reschedule policies');
    await expect(swarm('run', '-d', '-e', 'reschedule:always', 'busybox:local', 'true')).rejects.toThrow(
      'invalid reschedule policy: always',
    );
    const response = await fetch(`http://127.0.0.1:${PORT}/containers/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Image: 'busybox:local', Env: ['reschedule:sometimes'] }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('invalid reschedule policy: sometimes');
    expect(rowsNamed(await rows(manager.host), 'bad1')).toHaveLength(0);
  });

  it('re-creates an on-node-failure container elsewhere with its swarm id and port; off and node== pinned ones stay', async () => {
    await swarm(
      'run',
      '-d',
      '--name',
      'web',
      '-p',
      '8080:80',
      '-e',
      'reschedule:on-node-failure',
      '-e',
      `constraint:node==~${dead}`,
      'busybox:local',
      'httpd',
      '-f',
      '-p',
      '80',
      '-h',
      '/www',
    );
    await swarm('run', '-d', '--name', 'off', '-e', `constraint:node==~${dead}`, 'busybox:local', 'sleep', '600');
    await swarm(
      'run',
      '-d',
      '--name',
      'pinned',
      '-l',
      'com.docker.swarm.reschedule-policies=["on-node-failure"]',
      '-e',
      `constraint:node==${dead}`,
      'busybox:local',
      'sleep',
      '600',
    );
    const before = await rows(manager.host);
    for (const name of ['web', 'off', 'pinned']) expect(before.get(`${dead}/${name}`)?.status).toMatch(/^Up/);
    webSwarmId = await swarm('inspect', '-f', `{{index .Config.Labels "${SWARM_ID}"}}`, 'web');
    expect(webSwarmId).toMatch(/^[0-9a-f]{64}$/);

    const ping = watchAnswering(testbed.engines[0]!.addr);
    await eventually('engine answering before it is stopped', () => ping.answering() === true);
    await testbed.stopEngine(FIRST);
    const moved = await pollAsync(
      'web running on another node',
      async () => {
        const found = rowsNamed(await rows(manager.host), 'web').find(
          ([name, row]) => !name.startsWith(`${dead}/`) && row.status.startsWith('Up'),
        );
        return found ? { at: Date.now(), name: found[0], ports: found[1].ports } : undefined;
      },
      30_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nmanager output:\n${manager.output().slice(-4000)}`);
    });
    ping.stop();
    const died = await eventually('engine seen dead', () => ping.down);
    console.log(`[reschedule] node death -> container running elsewhere: ${moved.at - died} ms (${moved.name})`);
    // 2 failed refreshes at most 2 s apart + one request timeout of slack + create and start
    expect(moved.at - died).toBeLessThan(15_000);

    const node = moved.name.split('/')[0]!;
    const engine = testbed.engines.find((candidate) => candidate.name === node)!;
    expect(moved.ports).toBe(`${engine.host}:8080->80/tcp`);
    expect(await swarm('inspect', '-f', `{{index .Config.Labels "${SWARM_ID}"}}`, 'web')).toBe(webSwarmId);
    expect(await swarm('inspect', '-f', '{{index .Config.Labels "com.docker.swarm.reschedule-policies"}}', 'web')).toBe(
      '["on-node-failure"]',
    );
    expect(await (await fetch(`http://${engine.host}:8080/`)).text()).toContain('hello from busybox:local');

    const after = await rows(manager.host);
    expect(rowsNamed(after, 'web').map(([name]) => name)).toEqual([moved.name]);
    expect(rowsNamed(after, 'off').map(([name]) => name)).toEqual([`${dead}/off`]);
    expect(rowsNamed(after, 'pinned').map(([name]) => name)).toEqual([`${dead}/pinned`]);
    await eventually(
      'the refused move logged',
      () => /Failed to reschedule container [0-9a-f]{64}: .*constraint/.test(manager.output()),
      5_000,
    );
    expect(manager.output()).toMatch(new RegExp(`Rescheduled container [0-9a-f]{64} from ${dead} to ${node} as [0-9a-f]{64}`));
  });

  it('removes the old copy when the failed node comes back: no duplicates', async () => {
    await testbed.startEngine(FIRST);
    const direct = `tcp://${testbed.engines[0]!.addr}`;
    await pollAsync(
      'node back Healthy and its duplicate removed',
      async () => {
        const info = await swarm('info');
        const healthy = new RegExp(`${dead}: [\\d.:]+\\n\\s*└ ID: \\S+\\n\\s*└ Status: Healthy`).test(info);
        const onEngine = await docker(direct, 'ps', '-a', '--filter', `label=${SWARM_ID}=${webSwarmId}`, '-q');
        return healthy && onEngine === '' ? true : undefined;
      },
      30_000,
    );
    const copies = await swarm('ps', '-a', '--filter', `label=${SWARM_ID}=${webSwarmId}`, '--format', '{{.Names}} {{.Status}}');
    expect(copies.split('\n')).toHaveLength(1);
    expect(copies).toMatch(/^node\d+\/web Up/);
    expect(copies.startsWith(`${dead}/`)).toBe(false);
    // the off and pinned containers were never moved: they are still the node's own
    const all = await rows(manager.host);
    expect(rowsNamed(all, 'off').map(([name]) => name)).toEqual([`${dead}/off`]);
    expect(rowsNamed(all, 'pinned').map(([name]) => name)).toEqual([`${dead}/pinned`]);
  });
});
