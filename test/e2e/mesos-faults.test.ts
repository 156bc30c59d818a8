import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { docker, row, startMesosManager, systemStatus, waitUntil as waitUntilQuiet } from '../mesos-double/swarm-cli.js';

// Bad input and outages: ZooKeeper missing at start and lost later, master errors, a corrupt stream.
// Engine 67 is the only agent.
const ZK_PORT = 23502;
const API_PORT = 23512;
let testbed: Testbed;
let zk: Service | undefined;
let master: MesosMasterDouble | undefined;
let manager: Manager;

const MANAGER_OPTIONS = ['mesos.tasktimeout=5s', 'mesos.offertimeout=3s', 'mesos.offerrefusetimeout=1s'];
/** Like waitUntil, with the manager's log in the failure message. */
const waitUntil = (check: () => Promise<boolean> | boolean, what: string, timeoutMs?: number) =>
  waitUntilQuiet(check, what, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message}\n${manager.output()}`);
  });
const status = async (key: string) => row(await systemStatus(API_PORT), key) ?? '';
const offers = async () => Number(await status('Offers'));

beforeAll(async () => {
  testbed = await startTestbed({ first: 67, count: 1 });
  manager = await startMesosManager(API_PORT, `zk://127.0.0.1:${ZK_PORT}/mesos`, MANAGER_OPTIONS, 0);
});

afterAll(async () => {
  await manager?.stop();
  await master?.stop();
  await Promise.all([testbed?.stop(), zk?.stop()]);
});

describe('driver-mesos under faults', () => {
  it('keeps serving while ZooKeeper is unreachable at start, and subscribes once it comes', async () => {
    expect(await status('Mesos Master')).toBe('none');
    await waitUntil(async () => (await status('Mesos Discovery')).includes('unreachable'), 'unreachable ZooKeeper in info', 10_000);
    expect(manager.output()).toContain(`ZooKeeper 127.0.0.1:${ZK_PORT} unreachable`);
    zk = await startZooKeeper(ZK_PORT);
    master = await startMesosMaster({
      agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port })),
      zk: { servers: zk.addr, path: '/mesos' },
      heartbeatIntervalSeconds: 2,
      statusRetryMs: 500,
    });
    await waitUntil(async () => (await offers()) >= 1, 'offers after ZooKeeper came', 30_000);
    expect(await status('Mesos Discovery')).toContain('connected');
    expect(await status('Mesos Status')).toBe('subscribed');
  });

  it('logs an ERROR event and 503 answers, then subscribes again', async () => {
    master!.failNext(2, 503, 'Master has not finished recovery');
    master!.sendError('Framework error injected by the test');
    await waitUntil(() => manager.output().includes('answered 503: Master has not finished recovery'), '503 in the log');
    expect(manager.output()).toContain('the master sent an ERROR event: Framework error injected by the test');
    await waitUntil(async () => (await status('Mesos Status')) === 'subscribed' && (await offers()) >= 1, 'subscribed again');
  });

  it('reports a refused ACCEPT (415) to docker run, and the next run works', async () => {
    master!.failNext(1, 415, "Expecting 'Content-Type' of application/json or application/x-protobuf");
    const refused = await docker(API_PORT, 'run', '-d', '-m', '32m', 'busybox:local', 'sleep', '100');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("answered 415: Expecting 'Content-Type' of application/json or application/x-protobuf");
    await waitUntil(async () => (await offers()) >= 1, 'offers again', 15_000);
    const ok = await docker(API_PORT, 'run', '-d', '-m', '32m', '--name', 'after-fault', 'busybox:local', 'sleep', '100');
    expect(ok.stderr).toBe('');
    expect((await docker(API_PORT, 'rm', '-f', 'after-fault')).code).toBe(0);
  });

  it('drops a stream with a malformed record length and subscribes again', async () => {
    const subscribes = master!.calls.filter((call) => call.type === 'SUBSCRIBE').length;
    master!.sendRaw(Buffer.from('12x\n{}'));
    await waitUntil(() => manager.output().includes('malformed RecordIO length prefix'), 'malformed record in the log');
    await waitUntil(() => master!.calls.filter((call) => call.type === 'SUBSCRIBE').length > subscribes, 're-subscribe');
    await waitUntil(async () => (await offers()) >= 1, 'offers after re-subscribe');
  });

  it('declines offers it did not use after mesos.offertimeout, with mesos.offerrefusetimeout', async () => {
    const declinesBefore = master!.calls.filter((call) => call.type === 'DECLINE').length;
    await waitUntil(
      () => master!.calls.filter((call) => call.type === 'DECLINE').length > declinesBefore,
      'DECLINE after the offer timeout',
      10_000,
    );
    const decline = master!.calls.filter((call) => call.type === 'DECLINE').at(-1)!;
    expect(decline.decline).toMatchObject({ filters: { refuse_seconds: 1 } });
  });

  it('keeps the current master when ZooKeeper is lost later, and reconnects when it is back', async () => {
    await zk!.kill();
    await waitUntil(async () => (await status('Mesos Discovery')).includes('disconnected'), 'lost ZooKeeper in info', 15_000);
    expect(await status('Mesos Master')).toBe(master!.address);
    expect(await status('Mesos Status')).toBe('subscribed');
    await zk!.restart();
    await waitUntil(async () => (await status('Mesos Discovery')).includes('(ZooKeeper connected)'), 'ZooKeeper back in info', 20_000);
  });

  it('tears the framework down on shutdown only when mesos.teardown=true', async () => {
    const frameworkId = master!.frameworkList()[0]!.id;
    await manager.stop();
    expect(master!.calls.some((call) => call.type === 'TEARDOWN')).toBe(false);
    expect(master!.frameworkList()).toEqual([expect.objectContaining({ id: frameworkId, connected: false })]);
    // Straight to the master (host:port) with a fresh state file: a second framework, torn down on stop.
    const stateDir = mkdtempSync(join(tmpdir(), 'swarm-mesos-'));
    try {
      manager = await startMesosManager(
        API_PORT,
        master!.address,
        [...MANAGER_OPTIONS, 'mesos.teardown=true', `mesos.statefile=${join(stateDir, 'framework.json')}`],
        0,
      );
      await waitUntil(
        () => master!.frameworkList().some((framework) => framework.id !== frameworkId && framework.connected),
        'second framework subscribed',
      );
      await manager.stop();
      await waitUntil(() => master!.calls.some((call) => call.type === 'TEARDOWN'), 'TEARDOWN');
      expect(master!.frameworkList()).toEqual([expect.objectContaining({ id: frameworkId, connected: false })]);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
