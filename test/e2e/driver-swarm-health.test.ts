import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterEvent } from '@swarm/plugin-sdk';
import type { SwarmCluster } from '../../plugins/driver-swarm/src/swarm-cluster.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import type { Swarm } from '@swarm/core';
import { buildSwarm, collectEvents, eventually, nodeRows, watchAnswering } from './driver-swarm-support.js';

// engines 13-14; refresh every 1-2 s, Unhealthy after 2 failures
const FIRST = 13;

describe('driver-swarm engine health transitions', () => {
  let testbed: Testbed;
  let swarm: Swarm;
  let cluster: SwarmCluster;
  let recorded: { events: ClusterEvent[]; stop: () => void };

  beforeAll(async () => {
    testbed = await startTestbed({ first: FIRST, count: 2 });
    await testbed.stopEngine(FIRST + 1);
    // a bare h:p,h:p list, as `swarm manage` takes it
    ({ swarm, cluster } = await buildSwarm(testbed.addrs));
    recorded = collectEvents((listener) => cluster.subscribe(listener));
    await swarm.start();
  });

  afterAll(async () => {
    recorded?.stop();
    await swarm?.stop();
    await testbed?.stop();
  });

  const byAddr = (addr: string) => cluster.nodes().find((node) => node.addr === addr)!;

  it('keeps an engine that is not up yet Pending with its error, and serves the others', async () => {
    const down = byAddr(testbed.engines[1]!.addr);
    expect(down.status()).toBe('pending');
    expect(down.lastError()).toMatch(/ECONNREFUSED/);
    const rows = cluster.info().systemStatus;
    const pendingRow = rows.findIndex(([key, value]) => key === ' (unknown)' && value === down.addr);
    expect(pendingRow).toBeGreaterThan(0);
    expect(rows[pendingRow + 2]).toEqual(['  └ Status', 'Pending']);
    expect(rows.find(([key, value]) => key === '  └ Error' && value.includes('ECONNREFUSED'))).toBeDefined();
    const container = await cluster.createContainer({ Image: 'busybox:local', Cmd: ['true'] }, 'while-one-is-down');
    expect(container.node.name).toBe(`node${FIRST}`);
  });

  it('turns a pending engine Healthy soon after it starts answering', async () => {
    const ping = watchAnswering(testbed.engines[1]!.addr);
    const launched = Date.now();
    const node = byAddr(testbed.engines[1]!.addr);
    await testbed.startEngine(FIRST + 1);
    await eventually('Healthy after start', () => node.isHealthy(), 15_000);
    const healthy = Date.now();
    ping.stop();
    const answering = await eventually('first answer seen', () => ping.up);
    const elapsed = healthy - answering;
    console.log(`[driver-swarm] dockerd launch -> Healthy: ${healthy - launched} ms; first /_ping answer -> Healthy: ${elapsed} ms`);
    // pending engines are retried with backoff capped at the max refresh interval (2 s), plus a
    // full load on a machine shared with other test runs
    expect(elapsed).toBeLessThan(5_000);
    expect(node.name).toBe(`node${FIRST + 1}`);
    expect(recorded.events.some((event) => event.Action === 'engine_connect' && event.node?.Name === `node${FIRST + 1}`)).toBe(true);
  });

  it('marks a dead engine Unhealthy with engine_disconnect, then Healthy with engine_reconnect; containers survive', async () => {
    const node = byAddr(testbed.engines[0]!.addr);
    const kept = await cluster.createContainer(
      { Image: 'busybox:local', Cmd: ['sleep', '600'], Env: [`constraint:node==node${FIRST}`] },
      'survivor',
    );
    await cluster.startContainer(kept);

    const ping = watchAnswering(node.addr);
    // the death is timed from the watch's last answer: it must have had one (a first ping a loaded machine times out is no death)
    await eventually('engine answering before it is stopped', () => ping.answering() === true);
    await testbed.stopEngine(FIRST);
    await eventually('Unhealthy after death', () => node.status() === 'unhealthy', 15_000);
    const unhealthy = Date.now();
    const died = await eventually('engine seen dead', () => ping.down);
    const toUnhealthy = unhealthy - died;
    console.log(`[driver-swarm] engine stops answering -> Unhealthy: ${toUnhealthy} ms`);
    // 2 failures at most 2 s apart, plus one request timeout of slack
    expect(toUnhealthy).toBeLessThan(6_000);
    const disconnect = recorded.events.find((event) => event.Action === 'engine_disconnect');
    expect(disconnect?.node?.Name).toBe(`node${FIRST}`);
    expect(nodeRows(cluster.info().systemStatus, `node${FIRST}`).get('Status')).toBe('Unhealthy');
    expect(nodeRows(cluster.info().systemStatus, `node${FIRST}`).get('Error')).toMatch(/Cannot connect to the Docker engine endpoint/);
    // what the engine held stays known while it is away
    expect(cluster.container('survivor')?.id).toBe(kept.id);

    await testbed.startEngine(FIRST);
    await eventually('Healthy after restart', () => node.isHealthy(), 15_000);
    const healthy = Date.now();
    ping.stop();
    const back = await eventually('engine seen answering again', () => ping.up);
    console.log(`[driver-swarm] restarted engine answers -> Healthy: ${healthy - back} ms`);
    expect(healthy - back).toBeLessThan(6_000);
    expect(recorded.events.find((event) => event.Action === 'engine_reconnect')?.node?.Name).toBe(`node${FIRST}`);
    expect(nodeRows(cluster.info().systemStatus, `node${FIRST}`).get('Error')).toBe('(none)');
    expect(cluster.container('survivor')?.id).toBe(kept.id);
    expect(cluster.container(`node${FIRST}/while-one-is-down`)).toBeDefined();
  });
});
