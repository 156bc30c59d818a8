import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earlierBuild } from '../harness/earlier-build.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { startEtcd, type Service } from '../harness/services.js';
import { docker } from '../mesos-double/swarm-cli.js';
import { startJoin, type JoinProcess } from './discovery-kv-support.js';
import { readRole, type Role } from './replication-support.js';

// A rolling upgrade of replicated managers: this build next to the one issue #34 started from,
// each as the primary the other's replica forwards to, with the old primary stopped (SIGTERM) and
// the other taking over. Engine 202, etcd on 26370-26371 and managers on 26372-26374 belong to
// this file.
const BASE = 'f92cfa40867b0756b6290bbbe61c2718eab07c1a';
const ETCD_PORT = 26370;
const [OLD_PRIMARY, NEW_REPLICA, OLD_REPLICA] = [26372, 26373, 26374] as const;
let testbed: Testbed;
let etcd: Service;
let earlier: string;
let join: JoinProcess;
const DISCOVERY = `etcd://127.0.0.1:${ETCD_PORT}/upgrade`;
const managers: Manager[] = [];

function replicated(port: number, bin?: string): Promise<Manager> {
  return startManager({
    discovery: DISCOVERY,
    port,
    expectNodes: 1,
    ...(bin ? { bin } : {}),
    args: ['--replication', '--advertise', `127.0.0.1:${port}`, '--replication-ttl', '5s', '--heartbeat', '1s'],
  }).then((manager) => {
    managers.push(manager);
    return manager;
  });
}

async function roleOf(port: number): Promise<Role> {
  return (await readRole(port).catch(() => ({ role: 'unknown' as Role }))).role;
}

/** Polls until `port` reports `role`; the time that took. */
async function becomes(port: number, role: Role, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await roleOf(port)) === role) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`manager on ${port} not ${role} within ${timeoutMs} ms`);
}

const names = async (port: number) =>
  (await docker(port, 'ps', '-a', '--format', '{{.Names}}')).stdout
    .split('\n')
    .filter(Boolean)
    .map((name) => name.split('/').pop())
    .sort();

beforeAll(async () => {
  testbed = await startTestbed({ first: 202, count: 1 });
  etcd = await startEtcd(ETCD_PORT);
  join = startJoin(DISCOVERY, `${testbed.engines[0]!.host}:${testbed.engines[0]!.port}`);
  earlier = await earlierBuild(BASE);
}, 600_000);

afterAll(async () => {
  for (const manager of managers) await manager.stop();
  await docker(NEW_REPLICA, 'rm', '-f', 'up-old', 'up-new').catch(() => undefined);
  await join?.kill();
  await etcd?.stop();
  await testbed?.stop();
});

describe(`rolling upgrade from ${BASE.slice(0, 7)}`, () => {
  it('a replica of this build forwards to a primary of the earlier one, and takes over when it stops', async () => {
    const oldPrimary = await replicated(OLD_PRIMARY, earlier);
    await becomes(OLD_PRIMARY, 'primary', 20_000);
    await replicated(NEW_REPLICA);
    await becomes(NEW_REPLICA, 'replica', 20_000);
    const run = await docker(NEW_REPLICA, 'run', '-d', '--name', 'up-old', 'busybox:local', 'sleep', '600');
    expect(run.code, run.stderr).toBe(0);
    const attached = await docker(NEW_REPLICA, 'run', '--rm', 'busybox:local', 'echo', 'through the earlier primary');
    expect(attached.stdout).toBe('through the earlier primary');
    expect(await names(OLD_PRIMARY)).toContain('up-old');
    const before = await names(NEW_REPLICA);
    process.kill(oldPrimary.pid, 'SIGTERM');
    await becomes(NEW_REPLICA, 'primary', 5_000 + 3_000);
    expect(await names(NEW_REPLICA)).toEqual(before);
  });

  it('a replica of the earlier build forwards to a primary of this one, and takes over when it stops', async () => {
    expect(await roleOf(NEW_REPLICA)).toBe('primary');
    const newPrimary = managers.find((manager) => manager.port === NEW_REPLICA)!;
    await replicated(OLD_REPLICA, earlier);
    await becomes(OLD_REPLICA, 'replica', 20_000);
    const run = await docker(OLD_REPLICA, 'run', '-d', '--name', 'up-new', 'busybox:local', 'sleep', '600');
    expect(run.code, run.stderr).toBe(0);
    const attached = await docker(OLD_REPLICA, 'run', '--rm', 'busybox:local', 'echo', 'through this primary');
    expect(attached.stdout).toBe('through this primary');
    const logs = await docker(OLD_REPLICA, 'exec', 'up-new', 'echo', 'exec forwarded');
    expect(logs.stdout).toBe('exec forwarded');
    const before = await names(OLD_REPLICA);
    expect(before).toEqual(expect.arrayContaining(['up-old', 'up-new']));
    process.kill(newPrimary.pid, 'SIGTERM');
    await becomes(OLD_REPLICA, 'primary', 5_000 + 3_000);
    expect(await names(OLD_REPLICA)).toEqual(before);
    expect((await docker(OLD_REPLICA, 'rm', '-f', 'up-old', 'up-new')).code).toBe(0);
  });
});
