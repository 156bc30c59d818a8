import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import type { Service } from '../harness/services.js';
import { eventually, startJoin, startStore, type JoinProcess, type StoreScheme } from './discovery-kv-support.js';
import { docker, dockerWithInput, killManager, primariesAmong, PrimaryWatch, readRole, type NoPrimaryGap } from './replication-support.js';

export interface ReplicationSuiteSetup {
  readonly scheme: StoreScheme;
  /** First engine index (two engines). */
  readonly firstEngine: number;
  readonly storePort: number;
  /** Three manager ports. */
  readonly managerPorts: readonly [number, number, number];
}

const TTL_SECONDS = 5;
/**
 * What a client's view may add to the TTL: this file polls /info every 50 ms, and one /info
 * round trip on a loaded 2-core machine takes up to a few hundred ms.
 */
const POLLING_MARGIN_MS = 750;
/** One PrimaryWatch round may end up to its /info timeout after the moment it describes. */
const WATCH_ROUND_MS = 2100;

/** Polls fast, so the time a client first sees something is close to when it happened. */
async function seenWithin(probe: () => Promise<boolean>, what: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** When the manager last logged `Leader Election: Cluster leadership acquired` (epoch ms). */
function lastLeadershipAt(output: string): number {
  const times = output
    .split('\n')
    .filter((line) => line.includes('Cluster leadership acquired'))
    .map((line) => (JSON.parse(line) as { time: number }).time);
  if (times.length === 0) throw new Error(`the new primary never logged its election:\n${output}`);
  return times[times.length - 1]!;
}

/** Every manager's `Leader Election` and `New leader` lines, for failure messages. */
function electionLog(managers: readonly Manager[]): string {
  return managers
    .flatMap((manager) =>
      manager
        .output()
        .split('\n')
        .filter((line) => /Leader Election|New leader/.test(line))
        .map((line) => `${manager.port}: ${line}`),
    )
    .join('\n');
}

/** `docker info` as a user reads it: the `Role: ...` and `Primary: ...` lines. */
async function infoRoleLines(host: string): Promise<string[]> {
  const text = await docker(host, 'info');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(Role|Primary):/.test(line));
}

/**
 * Three `swarm manage --replication` against one store and two engines that `swarm join`
 * registered: one primary at a time, a client of a replica is served by the primary (run, logs
 * -f, attach), kill -9 of the primary hands over within the TTL, a store outage makes every
 * manager step down and ends with one primary.
 */
export function replicationSuite(setup: ReplicationSuiteSetup): void {
  describe(`replicated managers on ${setup.scheme}://`, () => {
    let testbed: Testbed;
    let store: Service;
    const joins: JoinProcess[] = [];
    const managers: Manager[] = [];
    let watch: PrimaryWatch | undefined;
    /** When the managers may rightly have no primary: start-up, failover, store outage. */
    const expectedGaps: NoPrimaryGap[] = [];
    const ports = [...setup.managerPorts];
    const advertise = (port: number) => `127.0.0.1:${port}`;
    const byPort = (port: number) => managers.find((manager) => manager.port === port)!;

    beforeAll(async () => {
      [testbed, store] = await Promise.all([
        startTestbed({ first: setup.firstEngine, count: 2 }),
        startStore(setup.scheme, setup.storePort),
      ]);
      const discovery = `${setup.scheme}://${store.addr}/replication`;
      for (const engine of testbed.engines) joins.push(startJoin(discovery, engine.addr, '20s'));
      const started = await Promise.all(
        ports.map((port) =>
          startManager({
            discovery,
            port,
            expectNodes: 2,
            // Three managers start at once on a shared, busy machine.
            timeoutMs: 60_000,
            args: ['--replication', '--advertise', advertise(port), '--replication-ttl', `${TTL_SECONDS}s`, '--heartbeat', '1s'],
          }),
        ),
      );
      managers.push(...started);
      expectedGaps.push({ from: Date.now(), to: Number.POSITIVE_INFINITY });
      watch = new PrimaryWatch(ports);
    });

    afterAll(async () => {
      await watch?.stop();
      await Promise.all(managers.map((manager) => manager.stop()));
      await Promise.all(joins.map((join) => join.kill()));
      await store?.stop();
      await testbed?.stop();
    });

    let primaryPort = 0;

    it('elects one primary; docker info shows Role: primary there and Role: replica with the Primary elsewhere', async () => {
      expectedGaps[0]!.to = await seenWithin(
        async () => (await primariesAmong(ports)).length === 1,
        'one primary among three managers',
        15_000,
      );
      primaryPort = (await primariesAmong(ports))[0]!;
      for (const port of ports) {
        const expected = port === primaryPort ? ['Role: primary'] : ['Role: replica', `Primary: ${advertise(primaryPort)}`];
        expect(await infoRoleLines(byPort(port).host)).toEqual(expected);
      }
    });

    it('serves a client of a replica through the primary: run, ps, logs -f, attach, run --rm', async () => {
      const replica = byPort(ports.find((port) => port !== primaryPort)!).host;
      const printer = await docker(replica, 'run', '-d', 'busybox:local', 'sh', '-c', 'for i in 1 2 3; do echo line$i; sleep 1; done');
      expect(await docker(replica, 'ps', '-a', '-q', '--no-trunc')).toContain(printer);
      expect(await docker(byPort(primaryPort).host, 'inspect', '--format', '{{.Id}}', printer)).toBe(printer);
      expect(await docker(replica, 'logs', '-f', printer)).toBe('line1\nline2\nline3');

      const reader = await docker(replica, 'run', '-d', '-i', 'busybox:local', 'sh', '-c', 'read word; echo got:$word');
      expect((await dockerWithInput(replica, 'hello\n', 'attach', reader)).trim()).toBe('got:hello');
      expect(await docker(replica, 'run', '--rm', 'busybox:local', 'echo', 'through a replica')).toBe('through a replica');
      await docker(replica, 'rm', '-f', printer, reader);
    });

    it(`kill -9 of the primary: a replica takes over within the TTL (${TTL_SECONDS}s)`, async () => {
      const survivors = ports.filter((port) => port !== primaryPort);
      const killedAt = await killManager(byPort(primaryPort));
      const gap = { from: killedAt, to: Number.POSITIVE_INFINITY };
      expectedGaps.push(gap);
      gap.to = await seenWithin(async () => (await primariesAmong(survivors)).length === 1, 'a new primary', 20_000);
      const seenMs = gap.to - killedAt;
      const [newPrimary] = await primariesAmong(survivors);
      // The elected manager's own log says when it took over, free of this test's polling delays.
      const failoverMs = lastLeadershipAt(byPort(newPrimary!).output()) - killedAt;
      console.log(
        `${setup.scheme}: new primary ${failoverMs} ms after kill -9 of the primary (seen by clients after ${seenMs} ms; replication TTL ${TTL_SECONDS}s)`,
      );
      expect(failoverMs).toBeLessThanOrEqual(TTL_SECONDS * 1000);
      expect(seenMs).toBeLessThanOrEqual(TTL_SECONDS * 1000 + POLLING_MARGIN_MS);

      const replicaPort = survivors.find((port) => port !== newPrimary)!;
      await eventually(
        async () => (await readRole(replicaPort)).primary === advertise(newPrimary!),
        'the replica to follow the new primary',
        10_000,
      );
      expect(await docker(byPort(replicaPort).host, 'run', '--rm', 'busybox:local', 'echo', 'after failover')).toBe('after failover');
      ports.splice(ports.indexOf(primaryPort), 1);
      primaryPort = newPrimary!;
    });

    it('store down: every manager steps down within the TTL; store back: exactly one primary', async () => {
      await store.kill();
      const downAt = Date.now();
      const outage = { from: downAt, to: Number.POSITIVE_INFINITY };
      expectedGaps.push(outage);
      const steppedDownMs =
        (await seenWithin(
          async () => (await primariesAmong(ports)).length === 0,
          'every manager to step down',
          TTL_SECONDS * 1000 + 3000,
        )) - downAt;
      console.log(`${setup.scheme}: no primary ${steppedDownMs} ms after the store went down`);
      // The primary may lead only while its session or lease is certainly alive, which is less than the TTL.
      expect(steppedDownMs).toBeLessThanOrEqual(TTL_SECONDS * 1000 + POLLING_MARGIN_MS);
      await store.restart();
      const backAt = Date.now();
      outage.to = await seenWithin(async () => (await primariesAmong(ports)).length === 1, 'one primary after the store restart', 30_000);
      console.log(`${setup.scheme}: one primary again ${outage.to - backAt} ms after the store came back`);
      const [primary] = await primariesAmong(ports);
      const replicaPort = ports.find((port) => port !== primary)!;
      await eventually(
        async () => (await readRole(replicaPort)).primary === advertise(primary!),
        'the replica to follow the primary',
        10_000,
      );
      expect(await infoRoleLines(byPort(replicaPort).host)).toEqual(['Role: replica', `Primary: ${advertise(primary!)}`]);
      const ran = await docker(byPort(replicaPort).host, 'run', '--rm', 'busybox:local', 'echo', 'after store restart').catch(
        (error: Error) => {
          throw new Error(`${error.message}\nelection log:\n${electionLog(ports.map(byPort))}`);
        },
      );
      expect(ran).toBe('after store restart');
    });

    it('showed exactly one primary at all times while polling all managers (none only during start-up, failover and the store outage)', async () => {
      await watch!.stop();
      console.log(
        `${setup.scheme}: ${watch!.rounds} polling rounds of /info, at most ${watch!.mostPrimaries} primary at once, ${watch!.gaps.length} stretches without one`,
      );
      expect(watch!.rounds).toBeGreaterThan(50);
      expect(watch!.overlaps).toEqual([]);
      expect(watch!.mostPrimaries).toBe(1);
      const unexpected = watch!.gaps.filter(
        (gap) => !expectedGaps.some((allowed) => gap.from >= allowed.from - WATCH_ROUND_MS && gap.to <= allowed.to + WATCH_ROUND_MS),
      );
      expect(unexpected.map((gap) => `${new Date(gap.from).toISOString()} for ${gap.to - gap.from} ms`)).toEqual([]);
    });
  });
}
