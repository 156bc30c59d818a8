import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { post } from '../mesos-double/raw-scheduler.js';
import { docker, row, startMesosManager, systemStatus, waitUntil } from '../mesos-double/swarm-cli.js';

// Master failover through ZooKeeper, manager restart and a silent stream. Engines 65-66 are the agents.
const ZK_PORT = 23501;
const API_PORT = 23511;
let testbed: Testbed;
let zk: Service;
let first: MesosMasterDouble;
let second: MesosMasterDouble;
let manager: Manager;

const startDouble = () =>
  startMesosMaster({
    agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port })),
    zk: { servers: zk.addr, path: '/mesos' },
    heartbeatIntervalSeconds: 1,
    statusRetryMs: 500,
  });
const manage = () => startMesosManager(API_PORT, `zk://${zk.addr}/mesos`, ['mesos.tasktimeout=5s'], 2);
const subscribeCalls = (master: MesosMasterDouble) => master.calls.filter((call) => call.type === 'SUBSCRIBE');

beforeAll(async () => {
  [testbed, zk] = await Promise.all([startTestbed({ first: 65, count: 2 }), startZooKeeper(ZK_PORT)]);
  first = await startDouble();
  second = await startDouble();
  manager = await manage();
});

afterAll(async () => {
  await manager?.stop();
  await Promise.all([first?.stop(), second?.stop()]);
  await Promise.all([testbed?.stop(), zk?.stop()]);
});

describe('driver-mesos resilience', () => {
  let frameworkId = '';
  let containerId = '';

  it('subscribes to the leader and the standby redirects with 307', async () => {
    expect(first.isLeader()).toBe(true);
    expect(second.isLeader()).toBe(false);
    expect(row(await systemStatus(API_PORT), 'Mesos Master')).toBe(first.address);
    const redirect = await post(
      second.address,
      JSON.stringify({ type: 'SUBSCRIBE', subscribe: { framework_info: { user: 'root', name: 'probe' } } }),
    );
    expect(redirect.status).toBe(307);
    expect(redirect.headers.location).toBe(`//${first.address}/api/v1/scheduler`);
    frameworkId = first.frameworkList()[0]!.id;
    const run = await docker(API_PORT, 'run', '-d', '-m', '32m', '--name', 'survivor', 'busybox:local', 'sleep', '1000');
    expect(run.stderr).toBe('');
    containerId = run.stdout;
  });

  it('follows the new leader when the leading master dies, re-subscribing as the same framework', async () => {
    await first.stop();
    await waitUntil(
      () => second.frameworkList().some((framework) => framework.id === frameworkId && framework.connected),
      'framework on the new leader',
    );
    expect(subscribeCalls(second)[0]).toMatchObject({ framework_id: { value: frameworkId } });
    await waitUntil(() => second.calls.some((call) => call.type === 'RECONCILE'), 'reconciliation on the new leader');
    await waitUntil(async () => row(await systemStatus(API_PORT), 'Mesos Master') === second.address, 'info shows the new master');
    expect(second.taskList().find((task) => task.containerId === containerId)?.state).toBe('TASK_RUNNING');
    expect((await docker(API_PORT, 'ps', '--format', '{{.ID}}')).stdout).toContain(containerId.slice(0, 12));
    const run = await docker(API_PORT, 'run', '-d', '-m', '32m', '--name', 'after-failover', 'busybox:local', 'sleep', '1000');
    expect(run.code).toBe(0);
  });

  it('re-subscribes with the framework ID stored in ZooKeeper after a manager restart, and reconciles', async () => {
    await manager.stop();
    const before = subscribeCalls(second).length;
    manager = await manage();
    const resubscribe = subscribeCalls(second)[before];
    expect(resubscribe).toMatchObject({ framework_id: { value: frameworkId } });
    await waitUntil(
      () => second.calls.slice(second.calls.indexOf(resubscribe!)).some((call) => call.type === 'RECONCILE'),
      'reconciliation after restart',
    );
    await waitUntil(
      async () => (await docker(API_PORT, 'ps', '--format', '{{.Names}}')).stdout.includes('survivor'),
      'survivor listed after restart',
    );
    expect((await docker(API_PORT, 'rm', '-f', 'survivor')).code).toBe(0);
    expect(second.taskList().find((task) => task.containerId === containerId)?.state).toBe('TASK_KILLED');
  });

  it('drops a stream that goes silent and subscribes again', async () => {
    const before = subscribeCalls(second).length;
    const silencedAt = Date.now();
    second.silenceStreams();
    await waitUntil(() => subscribeCalls(second).length > before, 're-subscribe after silence', 15_000);
    const detectedMs = Date.now() - silencedAt;
    expect(detectedMs).toBeGreaterThanOrEqual(4500);
    expect(subscribeCalls(second)[before]).toMatchObject({ framework_id: { value: frameworkId } });
    await waitUntil(async () => Number(row(await systemStatus(API_PORT), 'Offers') ?? 0) >= 1, 'offers on the new stream');
    expect((await docker(API_PORT, 'rm', '-f', 'after-failover')).code).toBe(0);
  });
});
