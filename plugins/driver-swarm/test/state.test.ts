import { describe, expect, it, vi } from 'vitest';
import type { Scheduler } from '@swarm/plugin-sdk';
import type { ContainerSummary, ImageSummary } from '@swarm/plugin-sdk/docker';
import { SwarmLabels } from '@swarm/plugin-sdk/helpers';
import { ContainerIndex } from '../src/container-index.js';
import { EngineContainer, cpusToShares, pendingContainer, sharesToCpus } from '../src/engine-container.js';
import { EngineNode, type NodeChangeListener } from '../src/engine-node.js';
import { InfoRows } from '../src/info-rows.js';
import { JsonPool } from '../src/shared-json.js';

const GiB = 1024 ** 3;

/** A cluster-side index fed by the nodes, as SwarmCluster wires them. */
function world() {
  const index = new ContainerIndex();
  const listener: NodeChangeListener = {
    containerChanged: (_node, before, after) => index.update(before, after),
    resourcesChanged: () => undefined,
  };
  const node = (name: string, addr: string, cpus = 4, memory = 2 * GiB) => {
    const engine = new EngineNode({
      addr,
      ip: addr.split(':')[0]!,
      engineEndpoint: { protocol: 'http', host: addr.split(':')[0]!, port: 2375 },
      overcommitPercent: 5,
      failureRetry: 3,
      listener,
      json: new JsonPool(),
    });
    engine.applySpecs(
      { ID: `ID-${name}`, Name: name, NCPU: cpus, MemTotal: memory, Driver: 'vfs', OSType: 'linux', Labels: ['zone=a'] },
      { Version: '20.10.24' },
    );
    return engine;
  };
  return { index, node };
}

function container(
  node: EngineNode,
  id: string,
  name: string,
  options: { cpus?: number; memory?: number; state?: string; swarmId?: string } = {},
) {
  const labels = options.swarmId ? { [SwarmLabels.id]: options.swarmId } : {};
  const summary: ContainerSummary = {
    Id: id,
    Names: [`/${name}`],
    Image: 'busybox',
    Created: 0,
    State: options.state ?? 'running',
    Labels: labels,
  };
  return new EngineContainer({
    node,
    json: node.json,
    summary,
    config: { Image: 'busybox', Labels: labels, HostConfig: { CpuShares: 0, Memory: options.memory ?? 0 } },
    inspect: undefined,
    reservedCpus: options.cpus ?? 0,
  });
}

const ID_A = 'a1b2c3d4e5f6' + '0'.repeat(52);
const ID_B = 'a1b2ffffffff' + '1'.repeat(52);

describe('EngineNode reservations', () => {
  it('adds overcommit as Swarm classic does (integer percent)', () => {
    const { node } = world();
    const engine = node('n1', '10.0.0.1:2375', 4, 1000);
    expect(engine.totalCpus()).toBe(4); // 4 + floor(4*5/100)
    expect(engine.totalMemory()).toBe(1050);
    // as Swarm classic: the standard labels an engine does not report (kernel, OS here) are left out
    expect(engine.labels()).toEqual({ storagedriver: 'vfs', ostype: 'linux', zone: 'a' });
    expect(engine.id).toBe('ID-n1|10.0.0.1:2375');
  });

  it('counts stopped and pending containers, and releases them', () => {
    const { node } = world();
    const engine = node('n1', '10.0.0.1:2375');
    engine.upsertContainer(container(engine, ID_A, 'web', { cpus: 1, memory: 100 }));
    engine.upsertContainer(container(engine, ID_B, 'db', { cpus: 2, memory: 200, state: 'exited' }));
    engine.addPending('s1', pendingContainer(engine, 's1', 'next', { Image: 'busybox', HostConfig: { CpuShares: 1, Memory: 50 } }));
    expect([engine.usedCpus(), engine.usedMemory()]).toEqual([4, 350]);
    expect(engine.containers().map((item) => item.state)).toEqual(['running', 'exited', 'pending']);
    expect(engine.counts()).toEqual({ total: 2, running: 1, paused: 0, stopped: 1 });
    // a refresh replaces the record: no double counting
    engine.upsertContainer(container(engine, ID_A, 'web', { cpus: 1, memory: 100, state: 'paused' }));
    expect([engine.usedCpus(), engine.usedMemory()]).toEqual([4, 350]);
    engine.removePending('s1');
    engine.deleteContainer(ID_B);
    expect([engine.usedCpus(), engine.usedMemory()]).toEqual([1, 100]);
    expect(engine.counts()).toEqual({ total: 1, running: 0, paused: 1, stopped: 0 });
  });

  it('hands out one frozen snapshot until something it shows changes', () => {
    const { node } = world();
    const engine = node('n1', '10.0.0.1:2375');
    const first = engine.snapshot();
    expect(engine.snapshot()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect([first.name, first.engineId, first.serverVersion, first.cpus, first.totalCpus]).toEqual(['n1', 'ID-n1', '20.10.24', 4, 4]);
    engine.setError(undefined);
    expect(engine.snapshot()).toBe(first);
    const changes: Array<[string, () => void]> = [
      ['a container', () => engine.upsertContainer(container(engine, ID_A, 'web', { cpus: 1 }))],
      ['an error', () => engine.setError('connect ECONNREFUSED')],
      ['an answer', () => engine.touch()],
      ['the status', () => engine.setStatus('unhealthy')],
      ['a failure', () => (engine.failureCount = 1)],
      ['the images', () => engine.setImages([{ Id: 'sha256:1', RepoTags: ['busybox:latest'] } as ImageSummary])],
    ];
    let last = first;
    for (const [what, change] of changes) {
      change();
      const next = engine.snapshot();
      expect(next, what).not.toBe(last);
      expect(next.version, what).toBeGreaterThan(last.version);
      last = next;
    }
    expect([last.usedCpus, last.status, last.lastError, last.containers.length, last.images.length]).toEqual([
      1,
      'unhealthy',
      'connect ECONNREFUSED',
      1,
      1,
    ]);
    expect([first.usedCpus, first.status, first.lastError, first.containers.length]).toEqual([0, 'pending', undefined, 0]);
  });

  it('converts CPUs to shares and back like Swarm classic', () => {
    expect(cpusToShares(1, 4)).toBe(256);
    expect(cpusToShares(1, 3)).toBe(342);
    expect(sharesToCpus(342, 3)).toBe(1);
    expect(sharesToCpus(1024, 2)).toBe(2);
    expect(sharesToCpus(0, 2)).toBe(0);
  });
});

describe('container lookup rules', () => {
  const { index, node } = world();
  const n1 = node('n1', '10.0.0.1:2375');
  const n2 = node('n2', '10.0.0.2:2375');
  n1.upsertContainer(container(n1, ID_A, 'web', { swarmId: 'f'.repeat(64) }));
  n2.upsertContainer(container(n2, ID_B, 'db', { swarmId: 'e'.repeat(64) }));
  n2.upsertContainer(container(n2, 'c'.repeat(64), 'web'));

  it.each([
    [ID_A, ID_A],
    [ID_A.slice(0, 12), ID_A],
    ['f'.repeat(64), ID_A],
    ['db', ID_B],
    ['/db', ID_B],
    ['n1/web', ID_A],
    ['ID-n2/web', 'c'.repeat(64)],
    ['a1b2f', ID_B],
    ['ffff', ID_A],
    ['ccc', 'c'.repeat(64)],
  ])('%s finds %s', (reference, id) => {
    expect(index.find(reference)?.id).toBe(id);
  });

  it.each([['web'], ['a1b2'], [''], ['n3/web'], ['nothing']])('%j is ambiguous or unknown: nothing', (reference) => {
    expect(index.find(reference)).toBeUndefined();
  });

  it('finds containers on one node by id, name or unique prefix, names first', () => {
    expect(n2.container('db')?.id).toBe(ID_B);
    expect(n2.container('/web')?.id).toBe('c'.repeat(64));
    expect(n2.container('a1b2')?.id).toBe(ID_B);
    expect(n1.container('db')).toBeUndefined();
    expect(n1.container('')).toBeUndefined();
  });

  it('tracks name use, pending names included, and forgets removed containers', () => {
    expect(index.nameTaken('db')).toBe(true);
    n1.addPending('s9', pendingContainer(n1, 's9', 'soon', { Image: 'busybox' }));
    expect(index.nameTaken('/soon')).toBe(true);
    n1.removePending('s9');
    expect(index.nameTaken('soon')).toBe(false);
    n2.deleteContainer(ID_B);
    expect(index.find('db')).toBeUndefined();
    expect(index.swarmIdTaken('e'.repeat(64))).toBe(false);
    // new swarm ids: 64 hex digits, all different (past the refill of the random pool, every 128 ids), none taken
    const ids = Array.from({ length: 300 }, () => index.newSwarmId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(ids).size).toBe(300);
    expect(ids.some((id) => index.swarmIdTaken(id))).toBe(false);
  });

  it('finds a name again once only one container holds it, and lists every holder of a swarm id', () => {
    expect(index.find('web')).toBeUndefined();
    n2.deleteContainer('c'.repeat(64));
    expect(index.find('web')?.id).toBe(ID_A);
    n2.upsertContainer(container(n2, 'd'.repeat(64), 'web-moved', { swarmId: 'f'.repeat(64) }));
    expect(
      index
        .withSwarmId('f'.repeat(64))
        .map((item) => item.id)
        .sort(),
    ).toEqual([ID_A, 'd'.repeat(64)]);
    n2.deleteContainer('d'.repeat(64));
    expect(index.withSwarmId('f'.repeat(64)).map((item) => item.id)).toEqual([ID_A]);
  });
});

describe('info rows', () => {
  it('prints Swarm classic rows per node, sorted by name', () => {
    const { node } = world();
    const b = node('b', '10.0.0.2:2375', 2, 2 * GiB);
    const a = node('a', '10.0.0.1:2375', 1, 512 * 1024 * 1024);
    a.setStatus('healthy');
    a.upsertContainer(container(a, ID_A, 'web', { cpus: 1, memory: 256 * 1024 * 1024 }));
    b.setError('connect ECONNREFUSED 10.0.0.2:2375');
    a.touch(new Date('2026-01-02T03:04:05.678Z'));
    const scheduler = { strategyName: 'spread', filterNames: ['health', 'port'] } as Pick<Scheduler, 'strategyName' | 'filterNames'>;
    const infoRows = new InfoRows();
    const { rows, totals } = infoRows.answer([b, a], scheduler);
    expect(rows.slice(0, 15)).toEqual([
      ['Role', 'primary'],
      ['Strategy', 'spread'],
      ['Filters', 'health, port'],
      ['Nodes', '2'],
      [' a', '10.0.0.1:2375'],
      ['  └ ID', 'ID-a'],
      ['  └ Status', 'Healthy'],
      ['  └ Containers', '1 (1 Running, 0 Paused, 0 Stopped)'],
      ['  └ Reserved CPUs', '1 / 1'],
      ['  └ Reserved Memory', '256 MiB / 537.6 MiB'],
      ['  └ Labels', 'ostype=linux, storagedriver=vfs, zone=a'],
      ['  └ Error', '(none)'],
      ['  └ UpdatedAt', '2026-01-02T03:04:05Z'],
      ['  └ ServerVersion', '20.10.24'],
      [' b', '10.0.0.2:2375'],
    ]);
    expect(rows).toContainEqual(['  └ Status', 'Pending']);
    expect(rows).toContainEqual(['  └ Error', 'connect ECONNREFUSED 10.0.0.2:2375']);
    expect(totals).toEqual({ ncpu: 3, memTotal: 2.5 * GiB, containers: 1, running: 1, paused: 0, stopped: 0 });

    // rows are kept per node between calls: every change a row shows must still reach them
    b.setError(undefined);
    b.setStatus('healthy');
    b.upsertContainer(container(b, ID_B, 'db', { state: 'exited' }));
    b.touch();
    const nodes = [b, a];
    const { rows: again, totals: againTotals } = infoRows.answer(nodes, scheduler);
    expect(again.slice(14, 22)).toEqual([
      [' b', '10.0.0.2:2375'],
      ['  └ ID', 'ID-b'],
      ['  └ Status', 'Healthy'],
      ['  └ Containers', '1 (0 Running, 0 Paused, 1 Stopped)'],
      ['  └ Reserved CPUs', '0 / 2'],
      ['  └ Reserved Memory', '0 B / 2.1 GiB'],
      ['  └ Labels', 'ostype=linux, storagedriver=vfs, zone=a'],
      ['  └ Error', '(none)'],
    ]);
    expect(again[22]?.[1]).toBe(b.updatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'));
    expect(againTotals).toEqual({ ncpu: 3, memTotal: 2.5 * GiB, containers: 2, running: 1, paused: 0, stopped: 1 });
    // the same node list again: only the changed node's rows and its share of the totals are redone
    a.deleteContainer(ID_A);
    const patched = infoRows.answer(nodes, scheduler);
    expect(patched.rows[7]).toEqual(['  └ Containers', '0 (0 Running, 0 Paused, 0 Stopped)']);
    expect(patched.rows[8]).toEqual(['  └ Reserved CPUs', '0 / 1']);
    expect(patched.totals).toEqual({ ncpu: 3, memTotal: 2.5 * GiB, containers: 1, running: 0, paused: 0, stopped: 1 });
    patched.rows.slice(14).forEach((row, index) => expect(row).toBe(again[14 + index]));
    // an answer handed out is the caller's: later changes do not reach into it
    expect(again[7]).toEqual(['  └ Containers', '1 (1 Running, 0 Paused, 0 Stopped)']);
    a.upsertContainer(container(a, ID_A, 'web', { cpus: 1, memory: 256 * 1024 * 1024 }));
    // unchanged nodes hand back the same row objects: the API front keeps their encoding by identity
    const third = infoRows.answer([a, b], scheduler);
    expect(third.rows.slice(4)).toHaveLength(again.slice(4).length);
    third.rows.slice(14).forEach((row, index) => expect(row).toBe(again[14 + index]));
    expect(third.rows[7]).toEqual(['  └ Containers', '1 (1 Running, 0 Paused, 0 Stopped)']);
    expect(third.totals).toEqual(againTotals);
  });
});

describe('image, volume and network lists', () => {
  it('are replaced (and the cluster told) only when the engine sends a different list', () => {
    let told = 0;
    const listener: NodeChangeListener = { containerChanged: () => undefined, resourcesChanged: () => told++ };
    const engine = new EngineNode({
      addr: '10.0.0.9:2375',
      ip: '10.0.0.9',
      engineEndpoint: { protocol: 'http', host: '10.0.0.9', port: 2375 },
      overcommitPercent: 5,
      failureRetry: 3,
      listener,
      json: new JsonPool(),
    });
    const busybox = { Id: 'sha256:b', RepoTags: ['busybox:local'], Created: 1, Size: 1 };
    engine.setImages([busybox]);
    const first = engine.images();
    engine.setImages([{ ...busybox }]);
    expect(engine.images()).toBe(first);
    engine.setImages([{ ...busybox, RepoTags: ['busybox:local', 'fanout:v1'] }]);
    expect(engine.images()[0]?.repoTags).toEqual(['busybox:local', 'fanout:v1']);
    engine.setNetworks([{ Id: 'n1', Name: 'bridge' }]);
    engine.upsertNetwork(undefined, 'n1');
    engine.setNetworks([{ Id: 'n1', Name: 'bridge' }]);
    expect(engine.networks().map((network) => network.name)).toEqual(['bridge']);
    expect(told).toBe(5);
  });
});

describe('a container swarm removed', () => {
  it('is not brought back by a read answered before the removal and applied after it', () => {
    const { index, node } = world();
    const engine = node('n1', '10.0.0.1:2375');
    engine.upsertContainer(container(engine, ID_A, 'web'));
    engine.upsertContainer(container(engine, ID_B, 'db'));
    // the `die` event's inspect of a `docker rm -f` started before the engine removed it
    const staleRead = container(engine, ID_A, 'web', { state: 'exited' });
    engine.containerRemoved(ID_A);
    engine.upsertContainer(staleRead);
    expect(engine.containers().map((found) => found.id)).toEqual([ID_B]);
    expect(index.find('web')).toBeUndefined();
    expect(index.find(ID_B)?.id).toBe(ID_B);
  });

  it('is remembered only while a read begun before the removal can still arrive (twice the request timeout)', () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    try {
      const { node } = world();
      const engine = node('n1', '10.0.0.1:2375');
      engine.upsertContainer(container(engine, ID_A, 'web'));
      engine.containerRemoved(ID_A);
      vi.setSystemTime(1_000_000 + 19_000);
      engine.upsertContainer(container(engine, ID_A, 'web', { state: 'exited' }));
      expect(engine.containers()).toEqual([]);
      // no read lasts this long, so the ID is forgotten (a large cluster would hold them all otherwise)
      vi.setSystemTime(1_000_000 + 20_001);
      engine.upsertContainer(container(engine, ID_A, 'web', { state: 'exited' }));
      expect(engine.containers().map((found) => found.id)).toEqual([ID_A]);
    } finally {
      vi.useRealTimers();
    }
  });
});
