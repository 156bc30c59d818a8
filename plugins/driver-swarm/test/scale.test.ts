import { describe, expect, it } from 'vitest';
import type { Scheduler } from '@swarm/plugin-sdk';
import type { ContainerSummary } from '@swarm/plugin-sdk/docker';
import { ContainerIndex } from '../src/container-index.js';
import { EngineContainer } from '../src/engine-container.js';
import { EngineNode, type NodeChangeListener } from '../src/engine-node.js';
import { InfoRows } from '../src/info-rows.js';
import { JsonPool } from '../src/shared-json.js';

const NODES = 1000;
const PER_NODE = 30;

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

describe('in-memory state at 1,000 engines × 30 containers', () => {
  it('answers info, lookups and per-node reads without growing work per call', () => {
    const index = new ContainerIndex();
    const listener: NodeChangeListener = {
      containerChanged: (_node, before, after) => index.update(before, after),
      resourcesChanged: () => undefined,
    };
    const nodes: EngineNode[] = [];
    const load = timed(() => {
      for (let n = 0; n < NODES; n++) {
        const host = `10.${n >> 8}.${n & 255}.1`;
        const node = new EngineNode({
          addr: `${host}:2375`,
          ip: host,
          engineEndpoint: { protocol: 'http', host, port: 2375 },
          overcommitPercent: 5,
          failureRetry: 3,
          listener,
          json: new JsonPool(),
        });
        node.applySpecs(
          { ID: `ENGINE${n}`, Name: `node${n}`, NCPU: 8, MemTotal: 32 * 1024 ** 3, Driver: 'overlay2' },
          { Version: '20.10.24' },
        );
        node.setStatus('healthy');
        for (let c = 0; c < PER_NODE; c++) {
          const id = `${n.toString(16).padStart(4, '0')}${c.toString(16).padStart(4, '0')}`.padEnd(64, 'e');
          const summary: ContainerSummary = {
            Id: id,
            Names: [`/app-${n}-${c}`],
            Image: 'busybox',
            Created: 0,
            State: c % 3 === 0 ? 'exited' : 'running',
          };
          node.upsertContainer(
            new EngineContainer({
              node,
              json: node.json,
              summary,
              config: { Image: 'busybox', HostConfig: { CpuShares: 0, Memory: 1024 ** 2 } },
              inspect: undefined,
              reservedCpus: 0,
            }),
          );
        }
        nodes.push(node);
      }
    });
    const scheduler = { strategyName: 'spread', filterNames: ['health'] } as Pick<Scheduler, 'strategyName' | 'filterNames'> as Scheduler;
    const info = timed(() => new InfoRows().answer(nodes, scheduler).rows);
    const lookups = timed(() => {
      let found = 0;
      for (let i = 0; i < 10_000; i++) if (index.find(`app-${i % NODES}-${i % PER_NODE}`)) found++;
      return found;
    });
    const reservations = timed(() => nodes.reduce((sum, node) => sum + node.usedMemory() + node.usedCpus(), 0));
    console.log(
      `[driver-swarm] ${NODES * PER_NODE} containers: load ${load.ms.toFixed(0)} ms, info rows ${info.ms.toFixed(1)} ms, ` +
        `10,000 name lookups ${lookups.ms.toFixed(1)} ms, reservations of all nodes ${reservations.ms.toFixed(2)} ms`,
    );
    expect(info.value).toHaveLength(4 + NODES * 10);
    expect(info.value[7]).toEqual(['  └ Containers', `${PER_NODE} (20 Running, 0 Paused, 10 Stopped)`]);
    expect(lookups.value).toBe(10_000);
    expect(reservations.value).toBe(NODES * PER_NODE * 1024 ** 2);
    // bounds for a loaded shared 2-core machine: a scan of all containers per lookup (3·10^8 steps)
    // or per-container work in info would still blow through them
    expect(info.ms).toBeLessThan(1_000);
    expect(lookups.ms).toBeLessThan(3_000);
  });
});
