import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { makeTestCertificates, type TestCertificates } from '../mesos-double/certificates.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { docker as plainDocker, row, startMesosManager, systemStatus, waitUntil } from '../mesos-double/swarm-cli.js';

// Agents whose engines listen with --tlsverify (engines 105-106 on 127.0.0.106-107:2376), the master
// double at a fixed address, `swarm manage --tlsverify` on port 25050: the manager's TLS files are
// also what it presents to the agents' engines, as in Swarm classic. A second double (25053) and a
// manager without TLS files (25052) show what happens without them.
const FIRST = 105;
const API_PORT = 25050;
const MASTER_PORT = 25051;
const PLAIN_API_PORT = 25052;
const PLAIN_MASTER_PORT = 25053;
const dir = mkdtempSync(join(tmpdir(), 'swarm-mesos-tls-'));
let certs: TestCertificates;
let testbed: Testbed;
let master: MesosMasterDouble;
let manager: Manager;
let cliFlags: string[];

const docker = (...args: string[]) => plainDocker(API_PORT, ...cliFlags, ...args);

beforeAll(async () => {
  certs = await makeTestCertificates(dir, ['127.0.0.1', `127.0.0.${FIRST + 1}`, `127.0.0.${FIRST + 2}`]);
  cliFlags = ['--tlsverify', '--tlscacert', certs.ca, '--tlscert', certs.clientCert, '--tlskey', certs.clientKey];
  testbed = await startTestbed({ first: FIRST, count: 2, tlsDir: dir });
  const engineTls = { ca: readFileSync(certs.ca), cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) };
  master = await startMesosMaster({
    agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port, tls: engineTls })),
    port: MASTER_PORT,
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
  });
  manager = await startMesosManager(
    API_PORT,
    `mesos://127.0.0.1:${MASTER_PORT}`,
    ['mesos.tasktimeout=10s', 'mesos.offerrefusetimeout=1s', `mesos.statefile=${join(dir, 'framework.json')}`],
    2,
    {
      args: ['--tlsverify', '--tlscacert', certs.ca, '--tlscert', certs.serverCert, '--tlskey', certs.serverKey],
      cliFlags,
    },
  );
});

afterAll(async () => {
  await manager?.stop();
  await master?.stop();
  await testbed?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('driver-mesos with agents whose engines listen with --tlsverify', () => {
  it('really needs TLS: the engines refuse plain HTTP', async () => {
    const engine = testbed.engines[0]!;
    expect(engine.port).toBe(2376);
    const plain = await fetch(`http://${engine.host}:${engine.port}/info`).then(
      (res) => res.text(),
      (error: Error) => error.message,
    );
    expect(plain).toContain('Client sent an HTTP request to an HTTPS server');
  });

  it('runs a task and serves logs, exec, inspect, images and events through the agent engine over TLS', async () => {
    const since = String(Math.floor(Date.now() / 1000) - 1);
    const run = await docker('run', '-d', '-m', '32m', '--name', 'tlsweb', 'busybox:local', 'sh', '-c', 'echo hello-over-tls; sleep 1000');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const containerId = run.stdout;
    const task = master.taskList().find((candidate) => candidate.taskId.startsWith('tlsweb.'))!;
    expect(task).toMatchObject({ state: 'TASK_RUNNING', containerId });

    const inspect = JSON.parse((await docker('inspect', 'tlsweb')).stdout) as Array<{ Id: string; State: { Running: boolean } }>;
    expect(inspect[0]).toMatchObject({ Id: containerId, State: { Running: true } });
    await waitUntil(async () => (await docker('logs', 'tlsweb')).stdout.includes('hello-over-tls'), 'logs over TLS');
    expect((await docker('exec', 'tlsweb', 'echo', 'inside-over-tls')).stdout).toBe('inside-over-tls');
    const images = await docker('images', '--format', '{{.Repository}}:{{.Tag}}');
    expect(images.stdout.split('\n').filter((line) => line === 'busybox:local')).toHaveLength(2);

    await waitUntil(async () => {
      const until = String(Math.floor(Date.now() / 1000) + 1);
      const events = await docker(
        'events',
        '--since',
        since,
        '--until',
        until,
        '--filter',
        'container=tlsweb',
        '--filter',
        'event=start',
        '--format',
        '{{json .}}',
      );
      return events.stdout.includes(containerId) && events.stdout.includes(`"node.name":"${task.hostname}"`);
    }, 'the start event from the agent engine');

    expect((await docker('rm', '-f', 'tlsweb')).code).toBe(0);
    expect(master.taskList().find((candidate) => candidate.taskId === task.taskId)?.state).toBe('TASK_KILLED');
  });

  it('serves docker info over the TLS listener, with both agents offered and their event streams open', async () => {
    // the agent that ran the task is offered again once the refusal (1s) is over
    await waitUntil(async () => row(await systemStatus(API_PORT, cliFlags), 'Offers') === '2', 'both agents offered again');
    expect(row(await systemStatus(API_PORT, cliFlags), 'Mesos Status')).toBe('subscribed');
    expect(manager.output()).not.toMatch(/event stream unavailable/);
  });

  it('without the TLS files, a run fails saying why the agent engines cannot be read', async () => {
    const engineTls = { ca: readFileSync(certs.ca), cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) };
    const plainMaster = await startMesosMaster({
      agents: testbed.engines.map((engine) => ({
        host: engine.host,
        port: engine.port,
        tls: engineTls,
        attributes: { docker_port: '2376' },
      })),
      port: PLAIN_MASTER_PORT,
      heartbeatIntervalSeconds: 2,
    });
    const plain = await startMesosManager(
      PLAIN_API_PORT,
      `mesos://127.0.0.1:${PLAIN_MASTER_PORT}`,
      ['mesos.tasktimeout=4s', `mesos.statefile=${join(dir, 'plain.json')}`],
      1,
    );
    try {
      const run = await plainDocker(PLAIN_API_PORT, 'run', '-d', '-m', '16m', 'busybox:local', 'sleep', '100');
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('container failed to start after 4s');
      expect(run.stderr).toMatch(/node10[56]: engine 127\.0\.0\.10[67]:2376: Client sent an HTTP request to an HTTPS server/);
      expect(plain.output()).toMatch(/agent engine event stream unavailable; retrying/);
    } finally {
      await plain.stop();
      await plainMaster.stop();
    }
  });
});
