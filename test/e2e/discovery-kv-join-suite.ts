import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscoveryEntry } from '@swarm/plugin-sdk';
import { EtcdDiscoveryBackend } from '@swarm/discovery-etcd';
import { ZkDiscoveryBackend } from '@swarm/discovery-zk';
import type { Service } from '../harness/services.js';
import { eventually, startJoin, startStore, swarmList, type JoinProcess, type StoreScheme } from './discovery-kv-support.js';

/** `swarm join` / `swarm list` with the real CLI against one real store. */
export function joinListSuite(scheme: StoreScheme, port: number): void {
  describe(`swarm join and swarm list with ${scheme}://`, () => {
    let store: Service;
    let discovery: string;
    const joins: JoinProcess[] = [];
    const join = (addr: string) => {
      const process = startJoin(discovery, addr);
      joins.push(process);
      return process;
    };

    beforeAll(async () => {
      store = await startStore(scheme, port);
      discovery = `${scheme}://${store.addr}/e2e`;
    });
    afterAll(async () => {
      await Promise.all(joins.map((process) => process.kill()));
      await store?.stop();
    });

    it('lists the engines that joined', async () => {
      join('127.0.0.71:2375');
      join('127.0.0.72:2375');
      await eventually(async () => (await swarmList(discovery)).length === 2, 'two engines in swarm list');
      expect(await swarmList(discovery)).toEqual(['127.0.0.71:2375', '127.0.0.72:2375']);
    });

    it('drops an engine from the list once its join is killed and the TTL (3s) passes', async () => {
      await joins[1]!.kill();
      const killedAt = Date.now();
      await eventually(async () => (await swarmList(discovery)).length === 1, 'the killed engine to expire');
      console.log(`${scheme}: swarm list dropped the engine ${Date.now() - killedAt} ms after its join was killed (ttl 3s)`);
      expect(await swarmList(discovery)).toEqual(['127.0.0.71:2375']);
    });

    it('loses no engine across a store restart and accepts new joins afterwards', async () => {
      const backend = scheme === 'zk' ? new ZkDiscoveryBackend() : new EtcdDiscoveryBackend();
      const watching = backend.open(discovery.slice(`${scheme}://`.length), { heartbeat: 1, ttl: 3, options: {} });
      const sets: string[][] = [];
      watching.watch(
        (entries: readonly DiscoveryEntry[]) => sets.push(entries.map((entry) => entry.addr)),
        () => undefined,
      );
      try {
        await eventually(() => sets.length > 0, 'the watch to report');
        await store.restart();
        join('127.0.0.73:2375');
        await eventually(async () => (await swarmList(discovery)).length === 2, 'the new engine after the restart', 30_000);
        expect(await swarmList(discovery)).toEqual(['127.0.0.71:2375', '127.0.0.73:2375']);
        // The watch hears of the new entry on its own schedule, possibly after swarm list saw it.
        await eventually(
          () => JSON.stringify(sets.at(-1)) === JSON.stringify(['127.0.0.71:2375', '127.0.0.73:2375']),
          'the watch to report the new engine',
          10_000,
        );
        expect(sets.filter((set) => !set.includes('127.0.0.71:2375'))).toEqual([]);
      } finally {
        await watching.close();
      }
    });
  });
}
