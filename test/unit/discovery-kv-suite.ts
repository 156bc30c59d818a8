import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSwarmError, type Campaign, type Discovery } from '@swarm/plugin-sdk';
import { LEADER_ELECTION_PATH } from '@swarm/plugin-sdk/helpers';
import type { Service } from '../harness/services.js';
import { eventually, sleep, startChild, WatchLog, type KvStore } from './discovery-kv-fixtures.js';

/** Store restarts, TTL waits and child processes are slow on a loaded 2-core machine. */
const SLOW_TEST_MS = 90_000;
/** Starting or stopping a JVM (ZooKeeper) takes far longer than the unit hook default under load. */
const HOOK_MS = 90_000;

/** Registration, watch, layout, TTL expiry and store restarts against one real store. */
export function discoverySuite(store: KvStore, port: number): void {
  describe(`${store.scheme}:// discovery on a real store`, () => {
    let service: Service;
    const opened: Discovery[] = [];
    const open = (prefix: string, ttl = 10, options: Record<string, string> = {}, addr = service.addr) => {
      const discovery = store.backend.open(`${addr}/${prefix}`, { heartbeat: 1, ttl, options });
      opened.push(discovery);
      return discovery;
    };

    beforeAll(async () => {
      service = await store.start(port);
    }, HOOK_MS);
    afterAll(async () => {
      await Promise.all(opened.map((discovery) => discovery.close()));
      await service?.stop();
    }, HOOK_MS);

    it('registers <prefix>/docker/swarm/nodes/<ip:port> holding ip:port and watches the full set', async () => {
      const joiner = open('layout');
      await joiner.register('127.0.0.71:2375');
      await joiner.register('127.0.0.72:2375');
      const log = new WatchLog();
      const watcher = open('layout').watch(log.onEntries, log.onError);
      await eventually(() => log.sees(['127.0.0.71:2375', '127.0.0.72:2375']), 'both entries');
      expect(await store.list(service, 'layout/docker/swarm/nodes')).toEqual({
        'layout/docker/swarm/nodes/127.0.0.71:2375': '127.0.0.71:2375',
        'layout/docker/swarm/nodes/127.0.0.72:2375': '127.0.0.72:2375',
      });
      await joiner.register('127.0.0.73:2375');
      await eventually(() => log.sees(['127.0.0.71:2375', '127.0.0.72:2375', '127.0.0.73:2375']), 'the third entry');
      watcher.stop();
    });

    it('uses --discovery-opt kv.path under the prefix', async () => {
      await open('custom', 10, { 'kv.path': 'my/engines' }).register('127.0.0.74:2375');
      expect(await store.list(service, 'custom/my/engines')).toEqual({ 'custom/my/engines/127.0.0.74:2375': '127.0.0.74:2375' });
      expect(await store.list(service, 'custom/docker/swarm/nodes')).toEqual({});
    });

    it('ignores garbage in a node key with an error report, keeping the valid entries', async () => {
      await open('garbage').register('127.0.0.75:2375');
      await store.write(service, 'garbage/docker/swarm/nodes/junk', 'this is not an address');
      const log = new WatchLog();
      open('garbage').watch(log.onEntries, log.onError);
      await eventually(() => log.sees(['127.0.0.75:2375']), 'the valid entry');
      await eventually(() => log.errors.some((error) => error.message.includes('this is not an address')), 'an error naming the garbage');
    });

    it('rejects an invalid address on register', async () => {
      const error: unknown = await open('invalid')
        .register('no-port-here')
        .catch((caught: unknown) => caught);
      expect(isSwarmError(error, 'SWARM_ERR_DISCOVERY_INVALID')).toBe(true);
    });

    it(
      'drops an engine once its joining process dies and the TTL passes',
      async () => {
        const log = new WatchLog();
        open('expiry').watch(log.onEntries, log.onError);
        const join = startChild(store, `${service.addr}/expiry`, 3, 'join', '127.0.0.76:2375');
        await eventually(() => log.sees(['127.0.0.76:2375']), 'the joined engine');
        await join.kill();
        const killedAt = Date.now();
        await eventually(() => log.sees([]), 'the engine to expire', 15_000);
        const expiredAfter = Date.now() - killedAt;
        console.log(`${store.scheme}: entry expired ${expiredAfter} ms after its join died (ttl 3 s)`);
        expect(expiredAfter).toBeGreaterThan(1000);
      },
      SLOW_TEST_MS,
    );

    it(
      'registers again after the store dropped the session of a paused join',
      async () => {
        const log = new WatchLog();
        open('dropped').watch(log.onEntries, log.onError);
        const join = startChild(store, `${service.addr}/dropped`, 3, 'join', '127.0.0.70:2375');
        try {
          await eventually(() => log.sees(['127.0.0.70:2375']), 'the joined engine');
          join.pause();
          await eventually(() => log.sees([]), 'the store to drop the paused session', 15_000);
          join.resume();
          await eventually(() => log.sees(['127.0.0.70:2375']), 'the entry to come back', 15_000);
        } finally {
          await join.kill();
        }
      },
      SLOW_TEST_MS,
    );

    it(
      'keeps every engine across a store restart and resumes the watch',
      async () => {
        const log = new WatchLog();
        open('restart').watch(log.onEntries, log.onError);
        // a long TTL: the join's session (ZooKeeper) or lease (etcd) must outlast the store's restart,
        // which takes several seconds when the machine is busy; what is tested is the watch resuming
        const join = startChild(store, `${service.addr}/restart`, 30, 'join', '127.0.0.77:2375');
        try {
          await eventually(() => log.sees(['127.0.0.77:2375']), 'the joined engine');
          const setsBefore = log.sets.length;
          await service.restart();
          await open('restart').register('127.0.0.78:2375');
          await eventually(() => log.sees(['127.0.0.77:2375', '127.0.0.78:2375']), 'the watch to resume', 20_000).catch((error: Error) => {
            throw new Error(
              `${error.message}; last sets ${JSON.stringify(log.sets.slice(-3))}; last errors ${log.errors
                .slice(-4)
                .map((e) => e.message)
                .join(' | ')}; join said ${join.output.slice(-3).join(' | ')}`,
            );
          });
          expect(log.sets.slice(setsBefore).every((set) => set.includes('127.0.0.77:2375'))).toBe(true);
          expect(log.errors.length).toBeGreaterThan(0);
        } finally {
          await join.kill();
        }
      },
      SLOW_TEST_MS,
    );

    it(
      'reports an unreachable store through onError, retries and recovers when it starts',
      async () => {
        const log = new WatchLog();
        const watcher = open('late', 10, {}, `127.0.0.1:${port + 5}`).watch(log.onEntries, log.onError);
        await eventually(() => log.errors.length > 0, 'an error report', 12_000);
        expect(log.errors[0]!.message).toMatch(/127\.0\.0\.1:\d+|cannot|unavailable|connect/i);
        expect(log.sets).toEqual([]);
        const late = await store.start(port + 5);
        try {
          await open('late', 10, {}, late.addr).register('127.0.0.79:2375');
          await eventually(() => log.sees(['127.0.0.79:2375']), 'entries once the store is up', 30_000);
        } finally {
          watcher.stop();
          await late.stop();
        }
      },
      SLOW_TEST_MS,
    );
  });
}

/** Watches two candidates and fails the test if both ever lead at once. */
function monitorSingleLeader(campaigns: readonly Campaign[]): { stop(): void; violations: number } {
  const state = { violations: 0, stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    if (campaigns.filter((campaign) => campaign.isLeader()).length > 1) state.violations++;
  }, 10);
  return state;
}

/** docker/leadership semantics against one real store. */
export function leadershipSuite(store: KvStore, port: number): void {
  describe(`${store.scheme}:// leader election on a real store`, () => {
    const TTL = 4;
    let service: Service;
    const opened: Discovery[] = [];
    const election = (prefix: string) => {
      const discovery = store.backend.open(`${service.addr}/${prefix}`, { heartbeat: 1, ttl: TTL, options: {} });
      opened.push(discovery);
      const leadership = discovery.leadership?.(LEADER_ELECTION_PATH, TTL);
      if (leadership === undefined) throw new Error(`${store.scheme} offers no leadership`);
      return leadership;
    };
    const candidate = (prefix: string, value: string) => {
      const events: string[] = [];
      const campaign = election(prefix).campaign(value, {
        onElected: () => events.push('elected'),
        onLost: () => events.push('lost'),
      });
      return { campaign, events };
    };

    beforeAll(async () => {
      service = await store.start(port);
    }, HOOK_MS);
    afterAll(async () => {
      await Promise.all(opened.map((discovery) => discovery.close()));
      await service?.stop();
    }, HOOK_MS);

    it(
      'elects exactly one of two candidates, followers see it, and resigning hands over',
      async () => {
        const a = candidate('pair', '127.0.0.1:23681');
        const b = candidate('pair', '127.0.0.1:23682');
        const monitor = monitorSingleLeader([a.campaign, b.campaign]);
        const seen: Array<string | undefined> = [];
        election('pair').follow(
          (leader) => seen.push(leader),
          () => undefined,
        );
        await eventually(() => a.campaign.isLeader() || b.campaign.isLeader(), 'a leader');
        const [leader, other] = a.campaign.isLeader() ? [a, b] : [b, a];
        const leaderValue = leader === a ? '127.0.0.1:23681' : '127.0.0.1:23682';
        await eventually(() => seen.at(-1) === leaderValue, 'the follower to see the leader');
        if (store.scheme === 'etcd')
          expect(await store.list(service, 'pair/docker/swarm')).toMatchObject({ 'pair/docker/swarm/leader': leaderValue });
        const resignedAt = Date.now();
        await leader.campaign.resign();
        await eventually(() => other.campaign.isLeader(), 'the other candidate to take over');
        console.log(`${store.scheme}: handover after resign took ${Date.now() - resignedAt} ms`);
        await eventually(() => seen.at(-1) !== leaderValue && seen.at(-1) !== undefined, 'the follower to see the new leader');
        monitor.stop();
        expect(monitor.violations).toBe(0);
        expect(leader.events).toEqual(['elected']);
        await other.campaign.resign();
      },
      SLOW_TEST_MS,
    );

    it(
      'warns when the store cannot honour the election TTL, and not when it can',
      async () => {
        // ZooKeeper expires sessions up to one 2 s tick late and grants at least 2 s (this harness's
        // minSessionTimeout); etcd leases last at least 2 s and are revoked up to 0.5 s late.
        const tooShort = store.scheme === 'zk' ? 4 : 3;
        const warnings = async (ttl: number, prefix: string) => {
          const discovery = store.backend.open(`${service.addr}/${prefix}`, { heartbeat: 1, ttl, options: {} });
          opened.push(discovery);
          const said: string[] = [];
          const campaign = discovery.leadership!(LEADER_ELECTION_PATH, ttl).campaign('127.0.0.1:23689', {
            onElected: () => said.push('elected'),
            onLost: () => undefined,
            onWarning: (message) => said.push(message),
          });
          await eventually(() => said.includes('elected'), 'the candidate to lead');
          await campaign.resign();
          return said.filter((line) => line !== 'elected');
        };
        const short = await warnings(tooShort, 'warn-short');
        expect(short).toHaveLength(1);
        expect(short[0]).toMatch(new RegExp(`^${store.scheme}: .*replication TTL of ${tooShort}s.*a failover can take up to \\d+ ms`));
        expect(await warnings(5, 'warn-fine')).toEqual([]);
      },
      SLOW_TEST_MS,
    );

    it(
      'replaces a leader whose process dies within the TTL',
      async () => {
        const dying = startChild(store, `${service.addr}/death`, TTL, 'campaign', '127.0.0.1:23683');
        await eventually(
          () => dying.output.includes('elected'),
          () => `the child to lead (it said: ${dying.output.join(' | ')})`,
          60_000,
        );
        const survivor = candidate('death', '127.0.0.1:23684');
        await sleep(500);
        expect(survivor.campaign.isLeader()).toBe(false);
        await dying.kill();
        const killedAt = Date.now();
        // The bound leaves room for a starved CPU; the measured time is printed.
        await eventually(() => survivor.campaign.isLeader(), 'the survivor to take over', TTL * 3000);
        console.log(`${store.scheme}: failover after leader death took ${Date.now() - killedAt} ms (ttl ${TTL} s)`);
        await survivor.campaign.resign();
      },
      SLOW_TEST_MS,
    );

    it(
      'replaces a paused leader whose session the store dropped; it steps down as soon as it runs again',
      async () => {
        const paused = startChild(store, `${service.addr}/paused`, TTL, 'campaign', '127.0.0.1:23687');
        await eventually(
          () => paused.output.includes('elected'),
          () => `the child to lead (it said: ${paused.output.join(' | ')})`,
          60_000,
        );
        const other = candidate('paused', '127.0.0.1:23688');
        try {
          paused.pause();
          await eventually(() => other.campaign.isLeader(), 'the other candidate to take over', TTL * 4000);
          paused.resume();
          const verdicts = () => paused.output.filter((line) => line === 'elected' || line === 'lost');
          await eventually(() => verdicts().at(-1) === 'lost', 'the resumed child to step down', TTL * 2000);
          await sleep(2000);
          expect(verdicts().at(-1)).toBe('lost');
          expect(other.campaign.isLeader()).toBe(true);
        } finally {
          await paused.kill();
          await other.campaign.resign();
        }
      },
      SLOW_TEST_MS,
    );

    it(
      'steps down at once when the store goes away and elects exactly one leader after it returns',
      async () => {
        const a = candidate('restart', '127.0.0.1:23685');
        const b = candidate('restart', '127.0.0.1:23686');
        const monitor = monitorSingleLeader([a.campaign, b.campaign]);
        await eventually(() => a.campaign.isLeader() || b.campaign.isLeader(), 'a leader');
        const leader = a.campaign.isLeader() ? a : b;
        await service.kill();
        const killedAt = Date.now();
        // Normally immediate (zk) or within a renewal (etcd); the bound leaves room for a starved CPU.
        await eventually(() => !a.campaign.isLeader() && !b.campaign.isLeader(), 'the leader to step down', TTL * 2000);
        console.log(`${store.scheme}: leader stepped down ${Date.now() - killedAt} ms after the store died (ttl ${TTL} s)`);
        // isLeader() reads the lease's deadline itself; the `lost` notice comes from a timer, a moment later on a starved CPU
        await eventually(() => leader.events.at(-1) === 'lost', 'the leader to be told it lost', 5000);
        await sleep(1000);
        await service.restart();
        await eventually(() => a.campaign.isLeader() || b.campaign.isLeader(), 'a leader after the restart', 30_000);
        await sleep(TTL * 1000);
        monitor.stop();
        expect(monitor.violations).toBe(0);
        expect([a, b].filter((c) => c.campaign.isLeader())).toHaveLength(1);
        await a.campaign.resign();
        await b.campaign.resign();
      },
      SLOW_TEST_MS,
    );
  });
}
