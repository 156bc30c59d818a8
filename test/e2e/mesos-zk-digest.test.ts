import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { docker, row, startMesosManager, systemStatus, waitUntil } from '../mesos-double/swarm-cli.js';

// The Mesos group in ZooKeeper behind a digest ACL: the master double owns /mesos as master:secret,
// `swarm` may only read it, the world nothing. Engine 108 is the agent; ZooKeeper on 25070, managers
// on 25071 (right password), 25072 (none), 25073 (wrong password).
const ZK_PORT = 25070;
const [GOOD, ANONYMOUS, WRONG] = [25071, 25072, 25073];
const PASSWORD = 'zk-reader-pass';
const stateDir = mkdtempSync(join(tmpdir(), 'swarm-mesos-digest-'));
let testbed: Testbed;
let zk: Service;
let master: MesosMasterDouble;
const managers = new Map<number, Manager>();

const options = (name: string) => [
  'mesos.tasktimeout=2s',
  'mesos.offerrefusetimeout=1s',
  `mesos.statefile=${join(stateDir, `${name}.json`)}`,
];
const status = async (port: number, key: string) => row(await systemStatus(port), key) ?? '';

/** What an unauthenticated ZooKeeper client gets for the group's children. */
function childrenWithoutCredentials(servers: string, path: string): Promise<string> {
  const client = zookeeper.createClient(servers, { sessionTimeout: 10_000 });
  return new Promise<string>((resolve) => {
    client.once('connected', () =>
      client.getChildren(path, (error: Error | null, children: string[]) => resolve(error ? error.message : children.join(','))),
    );
    client.connect();
  }).finally(() => client.close());
}

beforeAll(async () => {
  [testbed, zk] = await Promise.all([startTestbed({ first: 108, count: 1 }), startZooKeeper(ZK_PORT)]);
  master = await startMesosMaster({
    agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port })),
    zk: { servers: zk.addr, path: '/mesos', digest: { owner: 'master:secret', reader: `swarm:${PASSWORD}` } },
    heartbeatIntervalSeconds: 2,
    statusRetryMs: 500,
  });
  const started = await Promise.all([
    startMesosManager(GOOD, `zk://swarm:${PASSWORD}@${zk.addr}/mesos`, options('good'), 1),
    startMesosManager(ANONYMOUS, `zk://${zk.addr}/mesos`, options('anonymous'), 0),
    startMesosManager(WRONG, `zk://swarm:not-the-password@${zk.addr}/mesos`, options('wrong'), 0),
  ]);
  for (const [index, port] of [GOOD, ANONYMOUS, WRONG].entries()) managers.set(port, started[index]!);
});

afterAll(async () => {
  await Promise.all([...managers.values()].map((manager) => manager.stop()));
  await master?.stop();
  await Promise.all([testbed?.stop(), zk?.stop()]);
  rmSync(stateDir, { recursive: true, force: true });
});

describe('driver-mesos with a digest-protected Mesos group in ZooKeeper', () => {
  it('the group really is protected: an anonymous client is denied', async () => {
    expect(await childrenWithoutCredentials(zk.addr, '/mesos')).toContain('NO_AUTH');
  });

  it('finds the master with zk://user:pass@ and subscribes', async () => {
    expect(await status(GOOD, 'Mesos Master')).toBe(master.address);
    expect(await status(GOOD, 'Mesos Status')).toBe('subscribed');
    expect(Number(await status(GOOD, 'Offers'))).toBeGreaterThanOrEqual(1);
    const run = await docker(GOOD, 'run', '-d', '-m', '16m', '--name', 'behind-acl', 'busybox:local', 'sleep', '100');
    expect(run.stderr).toBe('');
    expect((await docker(GOOD, 'rm', '-f', 'behind-acl')).code).toBe(0);
  });

  it('says in docker info and in the log that the URL has no credentials, and keeps serving', async () => {
    const expected = 'ZooKeeper denied reading /mesos (NO_AUTH): the group is protected by an ACL and the zk:// URL has no user:password@';
    await waitUntil(async () => (await status(ANONYMOUS, 'Mesos Status')) === expected, 'NO_AUTH in docker info');
    expect(await status(ANONYMOUS, 'Mesos Master')).toBe('none');
    const log = managers.get(ANONYMOUS)!.output();
    expect(log).toContain(expected);
    // said once, although the group is looked at again every second
    expect(log.split(expected).length - 1).toBe(1);
  });

  it('says the credentials are wrong for a wrong password, without printing it, and keeps serving', async () => {
    const expected =
      'ZooKeeper denied reading /mesos (NO_AUTH): the credentials of user swarm in the zk:// URL are wrong or not allowed to read it';
    await waitUntil(async () => (await status(WRONG, 'Mesos Status')) === expected, 'wrong credentials in docker info');
    const manager = managers.get(WRONG)!;
    expect(manager.output()).toContain(expected);
    expect(manager.output()).not.toContain('not-the-password');
    expect(await status(WRONG, 'Mesos Discovery')).toBe(`zk://${zk.addr}/mesos (ZooKeeper connected)`);
    const run = await docker(WRONG, 'run', '-d', '-m', '16m', 'busybox:local', 'sleep', '100');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('container failed to start after 2s');
    expect((await docker(WRONG, 'info')).code).toBe(0);
  });
});
