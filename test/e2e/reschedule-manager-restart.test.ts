import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { docker } from './driver-swarm-support.js';
import { SWARM_ID, pollAsync, rowsNamed, rows } from './reschedule-support.js';

// engines 40-41, swarm manage on 127.0.0.1:23820 (stopped and started again on the same port)
const FIRST = 44; // engines 44-45 (api-clients owns 40-41)
const PORT = 23820;
const MANAGE_ARGS = ['--engine-refresh-min-interval', '1s', '--engine-refresh-max-interval', '2s', '--engine-failure-retry', '2'];

/** What `docker ps -a` and `docker inspect` through swarm say about the cluster's containers. */
async function snapshot(host: string): Promise<string[]> {
  const ids = (await docker(host, 'ps', '-a', '-q', '--no-trunc')).split('\n').filter(Boolean);
  const lines = await Promise.all(
    ids.map((id) =>
      docker(
        host,
        'inspect',
        '-f',
        `{{.Id}} {{.Name}} {{.Node.Name}} {{.State.Status}} {{index .Config.Labels "${SWARM_ID}"}} {{index .Config.Labels "com.docker.swarm.reschedule-policies"}}`,
        id,
      ),
    ),
  );
  return lines.sort();
}

describe('a restarted manager loses nothing', () => {
  let testbed: Testbed;
  let manager: Manager | undefined;
  let before: string[] = [];
  const swarm = (...args: string[]) => docker(manager!.host, ...args);
  const start = () => startManager({ discovery: testbed.addrs, port: PORT, expectNodes: 2, args: MANAGE_ARGS });

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 2 });
    manager = await start();
  });

  afterAll(async () => {
    await manager?.stop();
    await testbed?.stop();
  });

  it('rebuilds containers, swarm ids and policies from the engines after a restart', async () => {
    await swarm(
      'run',
      '-d',
      '--name',
      'kept',
      '-e',
      'reschedule:on-node-failure',
      '-e',
      `constraint:node==~node${FIRST}`,
      'busybox:local',
      'sleep',
      '600',
    );
    await swarm('run', '-d', '--name', 'plain', '-e', `constraint:node==node${FIRST + 1}`, 'busybox:local', 'sleep', '600');
    await swarm('create', '--name', 'idle', '-l', 'com.docker.swarm.reschedule-policies=["off"]', 'busybox:local', 'true');
    before = await snapshot(manager!.host);
    expect(before).toHaveLength(3);
    for (const line of before) expect(line).toMatch(/^[0-9a-f]{64} \/\S+ node\d+ \S+ [0-9a-f]{64} /);
    expect(before.find((line) => line.includes(' /kept '))).toMatch(/ running [0-9a-f]{64} \["on-node-failure"\]$/);
    const infoBefore = (await swarm('info')).match(/Containers: \d+\n\s*Running: \d+\n\s*Paused: \d+\n\s*Stopped: \d+/)?.[0];

    await manager!.stop();
    manager = undefined;
    manager = await start();

    expect(await snapshot(manager.host)).toEqual(before);
    expect((await swarm('info')).match(/Containers: \d+\n\s*Running: \d+\n\s*Paused: \d+\n\s*Stopped: \d+/)?.[0]).toBe(infoBefore);
    await expect(swarm('run', '-d', '--name', 'kept', 'busybox:local', 'true')).rejects.toThrow('The name kept is already assigned');
  });

  it('the restarted manager reschedules by the policy it read back from the engine', async () => {
    const kept = before.find((line) => line.includes(' /kept '))!.split(' ');
    await testbed.stopEngine(FIRST);
    const moved = await pollAsync(
      'kept running on the other node',
      async () => {
        const found = rowsNamed(await rows(manager!.host), 'kept').find(
          ([name, row]) => name === `node${FIRST + 1}/kept` && row.status.startsWith('Up'),
        );
        return found?.[0];
      },
      30_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nmanager output:\n${manager!.output().slice(-4000)}`);
    });
    expect(moved).toBe(`node${FIRST + 1}/kept`);
    expect(rowsNamed(await rows(manager!.host), 'kept').map(([name]) => name)).toEqual([moved]);
    expect(await swarm('inspect', '-f', `{{index .Config.Labels "${SWARM_ID}"}}`, 'kept')).toBe(kept[4]);
  });
});
