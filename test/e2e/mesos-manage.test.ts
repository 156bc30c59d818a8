import Docker from 'dockerode';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import type { Manager } from '../harness/manager.js';
import { docker, row, startMesosManager, systemStatus, waitUntil } from '../mesos-double/swarm-cli.js';

// `swarm manage -c mesos zk://...` with a Mesos master double in real ZooKeeper and engines 62-64 as agents.
const ZK_PORT = 23500;
const API_PORT = 23510;
const stateDir = mkdtempSync(join(tmpdir(), 'swarm-mesos-'));
const stateFile = join(stateDir, 'framework.json');
let testbed: Testbed;
let zk: Service;
let master: MesosMasterDouble;
let manager: Manager;

beforeAll(async () => {
  [testbed, zk] = await Promise.all([startTestbed({ first: 62, count: 3 }), startZooKeeper(ZK_PORT)]);
  master = await startMesosMaster({
    agents: testbed.engines.map((engine, index) => ({ host: engine.host, port: engine.port, attributes: { rack: `r${index}` } })),
    zk: { servers: zk.addr, path: '/mesos' },
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
  });
  manager = await startMesosManager(
    API_PORT,
    `zk://${zk.addr}/mesos`,
    ['mesos.tasktimeout=3s', 'mesos.offerrefusetimeout=1s', `mesos.statefile=${stateFile}`],
    3,
  );
});

afterAll(async () => {
  await manager?.stop();
  await master?.stop();
  await Promise.all([testbed?.stop(), zk?.stop()]);
  rmSync(stateDir, { recursive: true, force: true });
});

const engineOf = (hostname: string) => testbed.engines.find((engine) => engine.name === hostname)!;

describe('swarm manage -c mesos with the docker CLI', () => {
  it('shows the offers, the master and the framework in docker info', async () => {
    const rows = await systemStatus(API_PORT);
    expect(row(rows, 'Offers')).toBe('3');
    expect(rows.filter(([key]) => key === '  Offer')).toHaveLength(3);
    expect(rows.some(([key, value]) => key === '   └ ports' && value === '31000-31099')).toBe(true);
    expect(row(rows, 'Mesos Master')).toBe(master.address);
    expect(row(rows, 'Mesos Framework ID')).toBe(master.frameworkList()[0]!.id);
    const info = await docker(API_PORT, 'info');
    expect(info.stdout).toContain('Offers: 3');
  });

  it('runs `docker run -d -m 64m` as a Mesos task on an agent and serves ps, logs, exec, inspect and rm -f', async () => {
    const run = await docker(
      API_PORT,
      'run',
      '-d',
      '-m',
      '64m',
      '--name',
      'web1',
      'busybox:local',
      'sh',
      '-c',
      'echo hello-from-mesos; sleep 1000',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const containerId = run.stdout;
    const task = master.taskList().find((candidate) => candidate.taskId.startsWith('web1.'))!;
    expect(task).toMatchObject({ state: 'TASK_RUNNING', containerId });

    const engine = engineOf(task.hostname);
    const onEngine = await new Docker({ host: engine.host, port: engine.port }).getContainer(containerId).inspect();
    expect(onEngine.HostConfig.Memory).toBe(64 * 1024 * 1024);

    const ps = await docker(API_PORT, 'ps', '--format', '{{.ID}} {{.Names}}');
    expect(ps.stdout).toContain(`${containerId.slice(0, 12)} ${task.hostname}/web1`);
    const inspect = JSON.parse((await docker(API_PORT, 'inspect', 'web1')).stdout) as Array<{ Id: string; State: { Running: boolean } }>;
    expect(inspect[0]).toMatchObject({ Id: containerId, State: { Running: true } });
    await waitUntil(async () => (await docker(API_PORT, 'logs', 'web1')).stdout.includes('hello-from-mesos'), 'logs');
    expect((await docker(API_PORT, 'exec', 'web1', 'echo', 'inside')).stdout).toBe('inside');

    const removed = await docker(API_PORT, 'rm', '-f', 'web1');
    expect(removed.code).toBe(0);
    expect(master.taskList().find((candidate) => candidate.taskId === task.taskId)?.state).toBe('TASK_KILLED');
    await waitUntil(
      async () => !(await docker(API_PORT, 'ps', '-a', '--format', '{{.Names}}')).stdout.includes('web1'),
      'web1 gone from ps',
    );
  });

  it('measures docker run -> TASK_RUNNING through the double', async () => {
    const samples: Array<{ toAccept: number; toRunning: number; toExit: number }> = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const run = await docker(API_PORT, 'run', '-d', '-m', '16m', '--name', `timed${i}`, 'busybox:local', 'sleep', '1000');
      const exited = Date.now();
      expect(run.code).toBe(0);
      const task = master.taskList().find((candidate) => candidate.taskId.startsWith(`timed${i}.`))!;
      samples.push({ toAccept: task.acceptedAt! - started, toRunning: task.runningAt! - started, toExit: exited - started });
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ms = (pick: (sample: (typeof samples)[number]) => number) =>
      `${samples.map(pick).join(', ')} (median ${median(samples.map(pick))})`;
    console.log(
      `docker run -> ACCEPT ms: ${ms((s) => s.toAccept)}; -> TASK_RUNNING ms: ${ms((s) => s.toRunning)}; docker run exits after ms: ${ms((s) => s.toExit)}`,
    );
    for (const sample of samples) expect(sample.toRunning).toBeLessThan(sample.toExit);
    expect((await docker(API_PORT, 'rm', '-f', 'timed0', 'timed1', 'timed2')).code).toBe(0);
  });

  it('maps a published port to a host port taken from the offer', async () => {
    const run = await docker(
      API_PORT,
      'run',
      '-d',
      '-m',
      '16m',
      '-p',
      '80',
      '--name',
      'www',
      'busybox:local',
      'httpd',
      '-f',
      '-p',
      '80',
      '-h',
      '/www',
    );
    expect(run.stderr).toBe('');
    const task = master.taskList().find((candidate) => candidate.taskId.startsWith('www.'))!;
    const engine = engineOf(task.hostname);
    const ports = (await new Docker({ host: engine.host, port: engine.port }).getContainer(run.stdout).inspect()).NetworkSettings.Ports[
      '80/tcp'
    ];
    const hostPort = Number(ports?.[0]?.HostPort);
    expect(hostPort).toBeGreaterThanOrEqual(31000);
    expect(hostPort).toBeLessThanOrEqual(31099);
    await waitUntil(
      async () =>
        (
          await fetch(`http://${engine.host}:${hostPort}/`)
            .then((res) => res.text())
            .catch(() => '')
        ).includes('hello from busybox:local'),
      'httpd answers',
    );
    expect((await docker(API_PORT, 'rm', '-f', 'www')).code).toBe(0);
  });

  it("refuses a run without -c or -m with Swarm classic's text", async () => {
    const run = await docker(API_PORT, 'run', '-d', 'busybox:local', 'sleep', '10');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('resources constraints (-c and/or -m) are required by mesos');
  });

  it('places by constraints on agent attributes', async () => {
    const run = await docker(
      API_PORT,
      'run',
      '-d',
      '-m',
      '32m',
      '-e',
      'constraint:rack==r2',
      '--name',
      'pinned',
      'busybox:local',
      'sleep',
      '1000',
    );
    expect(run.code).toBe(0);
    const task = master.taskList().find((candidate) => candidate.taskId.startsWith('pinned.'))!;
    expect(task.hostname).toBe(testbed.engines[2]!.name);
    expect((await docker(API_PORT, 'rm', '-f', 'pinned')).code).toBe(0);
  });

  it('fails a run that fits no offer after mesos.tasktimeout', async () => {
    const started = Date.now();
    const run = await docker(API_PORT, 'run', '-d', '-m', '100000g', 'busybox:local', 'sleep', '10');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('container failed to start after 3s');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
  });

  it("passes an agent engine's refusal of a start through with its status (409 for a paused container)", async () => {
    expect((await docker(API_PORT, 'run', '-d', '-m', '16m', '--name', 'paused1', 'busybox:local', 'sleep', '1000')).code).toBe(0);
    expect((await docker(API_PORT, 'pause', 'paused1')).code).toBe(0);
    await waitUntil(
      async () => (await docker(API_PORT, 'ps', '--filter', 'name=paused1', '--format', '{{.Status}}')).stdout.includes('Paused'),
      'paused1 shown paused',
    );
    const answer = await fetch(`http://127.0.0.1:${API_PORT}/containers/paused1/start`, { method: 'POST' });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { message: string }).message).toContain('paused');
    expect((await docker(API_PORT, 'rm', '-f', 'paused1')).code).toBe(0);
  });

  it('answers operations Mesos cannot do with "not supported with mesos"', async () => {
    const volume = await docker(API_PORT, 'volume', 'create', 'v1');
    expect(volume.code).not.toBe(0);
    expect(volume.stderr).toContain('not supported with mesos');
  });
});
