import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotAddress, startHollowCluster, type HollowCluster } from '@swarm/core/hollow';
import { EngineClient } from '../bench/hollow/index.js';

// 1,000 engines × 30 containers in this one process: the scale benchmark's setting.
const COUNT = 1000;
const PER_ENGINE = 30;
let cluster: HollowCluster;
let rssBefore: number;

beforeAll(async () => {
  rssBefore = process.memoryUsage().rss;
  cluster = await startHollowCluster({
    count: COUNT,
    containersPerEngine: PER_ENGINE,
    delayMs: 0,
    firstSlot: 1000,
    ephemeralPorts: true,
    labels: (index) => [`rack=${index % 10}`],
  });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('a hollow cluster', () => {
  it('starts every engine on its own loopback address with its own identity', async () => {
    expect(cluster.engines).toHaveLength(COUNT);
    expect(new Set(cluster.engines.map((engine) => engine.host)).size).toBe(COUNT);
    expect(cluster.addrs.split(',')).toHaveLength(COUNT);
    const sampled = cluster.engines.filter((_, index) => index % 50 === 0);
    const infos = await Promise.all(
      sampled.map(async (engine) => {
        const client = new EngineClient(engine.host, engine.port);
        try {
          return await client.json<{ ID: string; Name: string; Containers: number; ContainersRunning: number; Labels: string[] }>(
            'GET',
            '/v1.41/info',
          );
        } finally {
          client.close();
        }
      }),
    );
    expect(new Set(infos.map((info) => info.ID)).size).toBe(sampled.length);
    expect(infos.map((info) => info.Name)).toEqual(sampled.map((engine) => engine.name));
    for (const info of infos) expect(info).toMatchObject({ Containers: PER_ENGINE, ContainersRunning: PER_ENGINE });
    expect(infos[1]?.Labels).toEqual(['rack=0']);
  });

  it('answers every engine at once', async () => {
    const answers = await Promise.all(
      cluster.engines.map(async (engine) => {
        const client = new EngineClient(engine.host, engine.port);
        try {
          return (await client.json<unknown[]>('GET', '/v1.41/containers/json?all=1')).length;
        } finally {
          client.close();
        }
      }),
    );
    expect(answers.every((length) => length === PER_ENGINE)).toBe(true);
  });

  it('stays memory-lean: 30,000 containers in well under 300 MB', () => {
    const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    expect(grownMb).toBeLessThan(300);
  });

  it('maps address slots onto 127.0.2.0-127.0.9.255, then onto ports 24000+', () => {
    expect(slotAddress(0)).toEqual({ host: '127.0.2.0', port: 2375 });
    expect(slotAddress(2047)).toEqual({ host: '127.0.9.255', port: 2375 });
    expect(slotAddress(2048)).toEqual({ host: '127.0.2.0', port: 24000 });
    expect(slotAddress(4097)).toEqual({ host: '127.0.2.1', port: 24001 });
  });
});
