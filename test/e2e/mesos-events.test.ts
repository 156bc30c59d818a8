import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { docker, startMesosManager, waitUntil } from '../mesos-double/swarm-cli.js';

// `docker events` through swarm on Mesos: the agent engine's own events (engine 107), with the
// node as Swarm classic shows it. Master double at a fixed address; API on port 25060.
const API_PORT = 25060;
const MASTER_PORT = 25061;
const stateDir = mkdtempSync(join(tmpdir(), 'swarm-mesos-events-'));
let testbed: Testbed;
let master: MesosMasterDouble;
let manager: Manager;

interface CliEvent {
  Type: string;
  Action: string;
  id?: string;
  from?: string;
  time: number;
  Actor: { ID: string; Attributes: Record<string, string> };
}

const parse = (stdout: string): CliEvent[] =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CliEvent);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `docker events --since ... --until ...` (a bounded replay from the manager's history). */
async function eventsBetween(since: number, until: number, ...filters: string[]): Promise<CliEvent[]> {
  const result = await docker(
    API_PORT,
    'events',
    '--since',
    String(since),
    '--until',
    String(until),
    ...filters.flatMap((filter) => ['--filter', filter]),
    '--format',
    '{{json .}}',
  );
  expect(result.stderr).toBe('');
  return parse(result.stdout);
}

beforeAll(async () => {
  testbed = await startTestbed({ first: 107, count: 1 });
  master = await startMesosMaster({
    agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port })),
    port: MASTER_PORT,
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
  });
  manager = await startMesosManager(
    API_PORT,
    `mesos://127.0.0.1:${MASTER_PORT}`,
    ['mesos.tasktimeout=10s', 'mesos.offerrefusetimeout=1s', `mesos.statefile=${join(stateDir, 'framework.json')}`],
    1,
  );
});

afterAll(async () => {
  await manager?.stop();
  await master?.stop();
  await testbed?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe('docker events through swarm on Mesos', () => {
  let containerId = '';
  let started = 0;

  it('shows create and start of a `docker run` container from the agent engine, once each, with the node', async () => {
    started = nowSeconds() - 1;
    const run = await docker(API_PORT, 'run', '-d', '-m', '16m', '--name', 'ev1', 'busybox:local', 'sleep', '1000');
    expect(run.stderr).toBe('');
    containerId = run.stdout;
    const node = testbed.engines[0]!.name;
    let events: CliEvent[] = [];
    await waitUntil(async () => {
      events = await eventsBetween(started, nowSeconds() + 1, 'container=ev1');
      return events.some((event) => event.Action === 'start');
    }, 'the start event');
    const actions = events.map((event) => event.Action);
    expect(actions.filter((action) => action === 'create')).toHaveLength(1);
    expect(actions.filter((action) => action === 'start')).toHaveLength(1);
    expect(actions.indexOf('create')).toBeLessThan(actions.indexOf('start'));
    for (const event of events) {
      expect(event).toMatchObject({ Type: 'container', id: containerId, from: `busybox:local node:${node}` });
      expect(event.Actor.Attributes).toMatchObject({
        name: 'ev1',
        image: 'busybox:local',
        'node.name': node,
        'node.addr': testbed.engines[0]!.addr,
      });
    }
  });

  it('filters by node and event, and honours --since and --until', async () => {
    const node = testbed.engines[0]!.name;
    const starts = await eventsBetween(started, nowSeconds() + 1, `node=${node}`, 'event=start');
    expect(starts.map((event) => event.id)).toContain(containerId);
    expect(starts.every((event) => event.Action === 'start')).toBe(true);
    expect(await eventsBetween(started, nowSeconds() + 1, 'node=some-other-node')).toEqual([]);
    expect(await eventsBetween(started - 600, started - 300, 'container=ev1')).toEqual([]);
    expect(await eventsBetween(nowSeconds() + 1, nowSeconds() + 2, 'container=ev1')).toEqual([]);
  });

  it('streams live events: `docker rm -f` gives one die and a destroy', async () => {
    const live = spawn('docker', ['-H', `tcp://127.0.0.1:${API_PORT}`, 'events', '--filter', 'container=ev1', '--format', '{{json .}}']);
    let output = '';
    live.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await new Promise((resolve) => setTimeout(resolve, 500)); // let the CLI subscribe
      const removedAt = nowSeconds() - 1;
      expect((await docker(API_PORT, 'rm', '-f', 'ev1')).code).toBe(0);
      await waitUntil(() => parse(output).some((event) => event.Action === 'destroy'), 'destroy on the live stream');
      const seen = parse(output).map((event) => event.Action);
      expect(seen.filter((action) => action === 'die')).toHaveLength(1);
      expect(seen.indexOf('die')).toBeLessThan(seen.indexOf('destroy'));
      // the task's TASK_KILLED update came too, but the engine had already told it
      await waitUntil(
        () => master.taskList().some((task) => task.taskId.startsWith('ev1.') && task.state === 'TASK_KILLED'),
        'TASK_KILLED',
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const replay = await eventsBetween(removedAt, nowSeconds() + 1, 'container=ev1', 'event=die');
      expect(replay).toHaveLength(1);
    } finally {
      live.kill();
    }
  });
});
