import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { healthyNodeCount, startManager, type Manager } from '../harness/manager.js';
import type { Service } from '../harness/services.js';
import { eventually, startJoin, startStore, type JoinProcess, type StoreScheme } from './discovery-kv-support.js';

const run = promisify(execFile);
const docker = async (host: string, ...args: string[]) => (await run('docker', ['-H', host, ...args], { timeout: 30_000 })).stdout.trim();
const healthyNodes = async (host: string) =>
  healthyNodeCount({
    SystemStatus: JSON.parse(await docker(host, 'info', '--format', '{{json .SystemStatus}}')) as Array<[string, string]>,
  });

const STORE_PORTS: Record<StoreScheme, number> = { zk: 23664, etcd: 23666 };
const MANAGER_PORTS: Record<StoreScheme, number> = { zk: 23670, etcd: 23671 };

describe('swarm manage with key-value discovery and swarm join', () => {
  let testbed: Testbed;
  const stores: Partial<Record<StoreScheme, Service>> = {};
  const joins: JoinProcess[] = [];
  const managers: Manager[] = [];

  beforeAll(async () => {
    const [bed, zk, etcd] = await Promise.all([
      startTestbed({ first: 74, count: 2 }),
      startStore('zk', STORE_PORTS.zk),
      startStore('etcd', STORE_PORTS.etcd),
    ]);
    testbed = bed;
    stores.zk = zk;
    stores.etcd = etcd;
  });

  afterAll(async () => {
    await Promise.all(joins.map((join) => join.kill()));
    await Promise.all(managers.map((manager) => manager.stop()));
    await Promise.all(Object.values(stores).map((store) => store.stop()));
    await testbed?.stop();
  });

  for (const scheme of ['zk', 'etcd'] as const) {
    it(`${scheme}: picks up the engines that join, schedules on them, and drops one whose join dies`, async () => {
      const discovery = `${scheme}://${stores[scheme]!.addr}/manage`;
      const [first, second] = testbed.engines;
      const firstJoin = startJoin(discovery, first!.addr);
      const secondJoin = startJoin(discovery, second!.addr);
      joins.push(firstJoin, secondJoin);
      const manager = await startManager({ discovery, port: MANAGER_PORTS[scheme], expectNodes: 2 });
      managers.push(manager);

      const id = await docker(manager.host, 'run', '-d', 'busybox:local', 'sleep', '60');
      const node = await docker(manager.host, 'inspect', '--format', '{{.Node.Name}}', id).catch(() => '');
      expect(await docker(manager.host, 'ps', '-q', '--no-trunc')).toContain(id);
      await docker(manager.host, 'rm', '-f', id);

      await secondJoin.kill();
      const killedAt = Date.now();
      await eventually(async () => (await healthyNodes(manager.host)) === 1, 'the manager to drop the engine whose join died', 30_000);
      console.log(
        `${scheme}: manager dropped the engine ${Date.now() - killedAt} ms after its join was killed (ttl 3s); container ran on ${node || 'an engine'}`,
      );
      await firstJoin.kill();
      await manager.stop();
    });
  }
});
