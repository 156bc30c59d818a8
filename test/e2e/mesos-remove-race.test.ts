import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { docker, startMesosManager, waitUntil } from '../mesos-double/swarm-cli.js';

// A Mesos master double whose agent removes a task's container as soon as the task ends (the Docker
// containerizer with --docker_remove_delay=0), engine 190 as the agent. Ports 26170-26179 and
// index 190 belong to this file.
const API_PORT = 26170;
const MASTER_PORT = 26171;
const stateDir = mkdtempSync(join(tmpdir(), 'swarm-mesos-race-'));
let testbed: Testbed;
let master: MesosMasterDouble;
let manager: Manager;
let engine: Docker;

beforeAll(async () => {
  testbed = await startTestbed({ first: 190, count: 1 });
  engine = new Docker({ host: testbed.engines[0]!.host, port: testbed.engines[0]!.port });
  master = await startMesosMaster({
    agents: testbed.engines.map((agent) => ({ host: agent.host, port: agent.port })),
    port: MASTER_PORT,
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
    removeDelayMs: 0,
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

async function onEngine(id: string): Promise<boolean> {
  return engine
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

describe('an agent that removes containers as their tasks end', () => {
  it('docker rm -f of a running task succeeds once, whoever removes the container first', async () => {
    for (let round = 0; round < 5; round++) {
      const name = `racer${round}`;
      const run = await docker(API_PORT, 'run', '-d', '-m', '32m', '--name', name, 'busybox:local', 'sleep', '1000');
      expect(run.code, run.stderr).toBe(0);
      const removed = await docker(API_PORT, 'rm', '-f', name);
      expect({ round, code: removed.code, stderr: removed.stderr, stdout: removed.stdout }).toEqual({
        round,
        code: 0,
        stderr: '',
        stdout: name,
      });
      expect(await onEngine(run.stdout)).toBe(false);
      const again = await docker(API_PORT, 'rm', name);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`No such container: ${name}`);
    }
  });

  it('docker stop and docker kill of a task succeed although Mesos removes the container right after', async () => {
    for (const command of ['stop', 'kill'] as const) {
      const name = `ended-by-${command}`;
      const run = await docker(API_PORT, 'run', '-d', '-m', '32m', '--name', name, 'busybox:local', 'sleep', '1000');
      expect(run.code, run.stderr).toBe(0);
      const ended = await docker(API_PORT, command, ...(command === 'stop' ? ['-t', '1'] : []), name);
      expect({ command, code: ended.code, stderr: ended.stderr, stdout: ended.stdout }).toEqual({
        command,
        code: 0,
        stderr: '',
        stdout: name,
      });
      await waitUntil(async () => !(await onEngine(run.stdout)), `${name} removed by the agent`);
      await waitUntil(
        async () => !(await docker(API_PORT, 'ps', '-a', '--format', '{{.Names}}')).stdout.includes(name),
        `${name} gone from ps -a`,
      );
    }
  });

  it('docker restart runs the task again under Mesos: one running container with the same name, reached by the old ID too', async () => {
    const run = await docker(
      API_PORT,
      'run',
      '-d',
      '-m',
      '32m',
      '-e',
      'GREETING=hi',
      '--name',
      'restarted',
      'busybox:local',
      'sleep',
      '1000',
    );
    expect(run.code, run.stderr).toBe(0);
    for (let round = 0; round < 2; round++) {
      const restarted = await docker(API_PORT, 'restart', '-t', '1', round === 0 ? 'restarted' : run.stdout);
      expect({ round, code: restarted.code, stderr: restarted.stderr }).toEqual({ round, code: 0, stderr: '' });
      // longer than the agent takes to remove an ended task's container
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const listed = await docker(API_PORT, 'ps', '-a', '--filter', 'name=restarted', '--format', '{{.Names}} {{.Status}}');
      expect(listed.stdout).toMatch(/^node190\/restarted,\S+ Up [^\n]*$/);
      const byOldId = await docker(
        API_PORT,
        'inspect',
        '-f',
        '{{.State.Running}} {{index .Config.Labels "com.docker.swarm.mesos.name"}} {{index .Config.Env 0}} {{.Config.Cmd}}',
        run.stdout,
      );
      expect(byOldId.stdout).toBe('true restarted GREETING=hi [sleep 1000]');
      const running = master.taskList().filter((task) => task.taskId.startsWith('restarted.') && task.state === 'TASK_RUNNING');
      expect(running).toHaveLength(1);
      expect(await onEngine(run.stdout)).toBe(false);
    }
    expect((await docker(API_PORT, 'rm', '-f', run.stdout)).code).toBe(0);
    expect((await docker(API_PORT, 'ps', '-a', '--filter', 'name=restarted', '--format', '{{.Names}}')).stdout).toBe('');
  });
});
