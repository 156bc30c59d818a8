import zookeeper from 'node-zookeeper-client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Manager } from '../harness/manager.js';
import { startZooKeeper, type Service } from '../harness/services.js';
import { startMesosMaster, type MesosMasterDouble } from '../mesos-double/index.js';
import { row, startMesosManager, systemStatus, waitUntil } from '../mesos-double/swarm-cli.js';

// Two master doubles in ZooKeeper; a manager given the standby's address follows its 307. Engine 68.
const ZK_PORT = 23503;
const API_PORT = 23513;
const stateDir = mkdtempSync(join(tmpdir(), 'swarm-mesos-'));
const stateFile = join(stateDir, 'framework.json');
let testbed: Testbed;
let zk: Service;
const masters: MesosMasterDouble[] = [];
let manager: Manager | undefined;

/** The children of /mesos with their MasterInfo, read with a plain ZooKeeper client. */
async function zkGroup(): Promise<Array<{ name: string; info: Record<string, unknown> }>> {
  const client = zookeeper.createClient(zk.addr);
  await new Promise<void>((resolve) => {
    client.once('connected', () => resolve());
    client.connect();
  });
  try {
    const children = await new Promise<string[]>((resolve, reject) =>
      client.getChildren('/mesos', (error: Error | null, names: string[]) => (error ? reject(error) : resolve(names))),
    );
    const entries = [];
    for (const name of children.sort()) {
      const data = await new Promise<Buffer>((resolve, reject) =>
        client.getData(`/mesos/${name}`, (error: Error | null, bytes: Buffer) => (error ? reject(error) : resolve(bytes))),
      );
      entries.push({ name, info: JSON.parse(data.toString('utf8')) as Record<string, unknown> });
    }
    return entries;
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  [testbed, zk] = await Promise.all([startTestbed({ first: 68, count: 1 }), startZooKeeper(ZK_PORT)]);
  for (let i = 0; i < 2; i++) {
    masters.push(
      await startMesosMaster({
        agents: testbed.engines.map((engine) => ({ host: engine.host, port: engine.port })),
        zk: { servers: zk.addr, path: '/mesos' },
        heartbeatIntervalSeconds: 2,
      }),
    );
  }
});

afterAll(async () => {
  await manager?.stop();
  await Promise.all(masters.map((master) => master.stop()));
  await Promise.all([testbed?.stop(), zk?.stop()]);
  rmSync(stateDir, { recursive: true, force: true });
});

describe('Mesos master double in ZooKeeper', () => {
  it('registers each master as json.info_<seq> with its MasterInfo; the lowest sequence leads', async () => {
    const [leader, standby] = masters;
    const group = await zkGroup();
    expect(group.map((entry) => entry.name)).toEqual(['json.info_0000000000', 'json.info_0000000001']);
    expect(group[0]!.info).toMatchObject({
      address: { ip: '127.0.0.1', port: leader!.port },
      ip: 16777343,
      port: leader!.port,
      version: '1.11.0',
    });
    expect(group[1]!.info).toMatchObject({ port: standby!.port });
    expect(leader!.isLeader()).toBe(true);
    expect(standby!.isLeader()).toBe(false);
  });

  it('lets a manager given the standby (host:port) follow the protocol-relative 307 to the leader', async () => {
    manager = await startMesosManager(API_PORT, masters[1]!.address, [`mesos.statefile=${stateFile}`], 0);
    await waitUntil(async () => row(await systemStatus(API_PORT), 'Mesos Status') === 'subscribed', 'subscribed through the redirect');
    expect(row(await systemStatus(API_PORT), 'Mesos Master')).toBe(masters[0]!.address);
    expect(masters[0]!.frameworkList()).toHaveLength(1);
    expect(masters[1]!.frameworkList()).toHaveLength(0);
  });
});
