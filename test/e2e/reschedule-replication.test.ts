import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { startEtcd, type Service } from '../harness/services.js';
import { startJoin, type JoinProcess } from './discovery-kv-support.js';
import { docker } from './driver-swarm-support.js';
import { readRole } from './replication-support.js';
import { SWARM_ID, pollAsync, rows, rowsNamed } from './reschedule-support.js';

// engines 42-43, etcd on 127.0.0.1:23840 (peer 23841), two replicated managers on 23850 and 23851
const FIRST = 42;
const ETCD_PORT = 23840;
const PORTS = [23850, 23851] as const;
const MOVE_LOG = /Rescheduled container|Failed to reschedule/;

describe('only the primary reschedules (two managers replicated through etcd)', () => {
  let testbed: Testbed;
  let etcd: Service;
  const joins: JoinProcess[] = [];
  const managers: Manager[] = [];

  beforeAll(async () => {
    [testbed, etcd] = await Promise.all([startTestbed({ first: FIRST, count: 2 }), startEtcd(ETCD_PORT)]);
    const discovery = `etcd://${etcd.addr}/reschedule`;
    for (const engine of testbed.engines) joins.push(startJoin(discovery, engine.addr, '20s'));
    const args = (port: number) => [
      '--replication',
      '--advertise',
      `127.0.0.1:${port}`,
      '--replication-ttl',
      '5s',
      '--heartbeat',
      '1s',
      '--engine-refresh-min-interval',
      '1s',
      '--engine-refresh-max-interval',
      '2s',
      '--engine-failure-retry',
      '2',
    ];
    managers.push(
      ...(await Promise.all(PORTS.map((port) => startManager({ discovery, port, expectNodes: 2, timeoutMs: 60_000, args: args(port) })))),
    );
  });

  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.stop()));
    await Promise.all(joins.map((join) => join.kill()));
    await etcd?.stop();
    await testbed?.stop();
  });

  it('moves the container once, by the primary; the replica leaves the engines alone', async () => {
    const primaryPort = await pollAsync(
      'a primary elected',
      async () => {
        const answers = await Promise.all(PORTS.map((port) => readRole(port)));
        const index = answers.findIndex((answer) => answer.role === 'primary');
        return index >= 0 && answers.every((answer) => answer.role !== 'unknown') ? PORTS[index] : undefined;
      },
      20_000,
    );
    const primary = managers.find((manager) => manager.port === primaryPort)!;
    const replica = managers.find((manager) => manager.port !== primaryPort)!;
    // through the replica, which hands it to the primary
    await docker(
      replica.host,
      'run',
      '-d',
      '--name',
      'moving',
      '-e',
      'reschedule:on-node-failure',
      '-e',
      `constraint:node==~node${FIRST}`,
      'busybox:local',
      'sleep',
      '600',
    );
    const swarmId = await docker(replica.host, 'inspect', '-f', `{{index .Config.Labels "${SWARM_ID}"}}`, 'moving');
    expect((await rows(primary.host)).get(`node${FIRST}/moving`)?.status).toMatch(/^Up/);

    await testbed.stopEngine(FIRST);
    await pollAsync(
      'moving running on the other node',
      async () =>
        rowsNamed(await rows(primary.host), 'moving').find(
          ([name, row]) => name === `node${FIRST + 1}/moving` && row.status.startsWith('Up'),
        ),
      30_000,
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\nprimary output:\n${primary.output().slice(-3000)}\nreplica output:\n${replica.output().slice(-3000)}`,
      );
    });
    // the replica saw the same engine die (it watches the same engines): give it time to act wrongly
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const onSurvivor = await docker(
      `tcp://${testbed.engines[1]!.addr}`,
      'ps',
      '-a',
      '--filter',
      `label=${SWARM_ID}=${swarmId}`,
      '--format',
      '{{.Names}} {{.Status}}',
    );
    expect(onSurvivor.split('\n')).toHaveLength(1);
    expect(onSurvivor).toMatch(/^moving Up/);
    expect(primary.output()).toMatch(/Rescheduled container [0-9a-f]{64} from node42 to node43/);
    expect(replica.output()).not.toMatch(MOVE_LOG);
  });
});
