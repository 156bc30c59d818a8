import { fakeNode } from '@swarm/plugin-sdk/testing';
import type { Container, Discovery, DiscoveryEntry, PlacementRequest, RankedNode } from '@swarm/plugin-sdk';
import { SwarmLabels } from '@swarm/plugin-sdk/helpers';
import { describe, expect, it } from 'vitest';
import { MonitoredDiscovery, redactDiscoveryUri } from '../src/discovery/monitored-discovery.js';
import { ReplicationController } from '../src/replication/replication-controller.js';
import { PlacementJournal } from '../src/deployment/placement-journal.js';
import { isWebExtensionPath } from '../src/http/web-paths.js';

const nodes = ['n1', 'n2', 'n3', 'n4'].map((name) => fakeNode({ name }));

function request(swarmId: string | undefined, name?: string): PlacementRequest {
  const labels = swarmId ? { [SwarmLabels.id]: swarmId } : {};
  return { config: { Image: 'busybox', Labels: labels }, name, cpus: 0, memory: 0, soft: true };
}

function ranked(...names: string[]): RankedNode[] {
  return names.map((name, index) => ({ node: nodes.find((node) => node.name === name)!, score: index / 10 }));
}

function container(swarmId: string | undefined, name: string): Container {
  return { name, labels: swarmId ? { [SwarmLabels.id]: swarmId } : {} } as unknown as Container;
}

describe('placement journal', () => {
  it('keeps each container’s placements by swarm ID (or name), with the best few candidates', () => {
    let now = 1000;
    const journal = new PlacementJournal({ now: () => now, candidates: 2 });
    journal.record(request('s1'), { ranked: ranked('n2', 'n1', 'n3'), strategy: 'spread', feasible: 3, considered: 4 });
    now = 2000;
    journal.record(request('s1'), { ranked: ranked('n3', 'n1'), strategy: 'spread', feasible: 2, considered: 4 });
    journal.record(request(undefined, 'mesos-task'), { ranked: ranked('n4'), strategy: 'binpack', feasible: 1, considered: 1 });
    expect(journal.history(container('s1', 'web'))).toEqual([
      {
        at: 1000,
        node: 'n2',
        strategy: 'spread',
        ranked: [
          { node: 'n2', score: 0 },
          { node: 'n1', score: 0.1 },
        ],
        feasible: 3,
        considered: 4,
      },
      {
        at: 2000,
        node: 'n3',
        strategy: 'spread',
        ranked: [
          { node: 'n3', score: 0 },
          { node: 'n1', score: 0.1 },
        ],
        feasible: 2,
        considered: 4,
      },
    ]);
    expect(journal.history(container(undefined, 'mesos-task')).map((record) => record.node)).toEqual(['n4']);
    expect(journal.history(container('other', 'other'))).toEqual([]);
  });

  it('is bounded: placements per container and containers overall, least recently placed forgotten first', () => {
    const journal = new PlacementJournal({ capacity: 2, perContainer: 2 });
    for (const node of ['n1', 'n2', 'n3'])
      journal.record(request('a'), { ranked: ranked(node), strategy: 's', feasible: 1, considered: 1 });
    expect(journal.history(container('a', 'a')).map((record) => record.node)).toEqual(['n2', 'n3']);
    journal.record(request('b'), { ranked: ranked('n1'), strategy: 's', feasible: 1, considered: 1 });
    journal.record(request('a'), { ranked: ranked('n4'), strategy: 's', feasible: 1, considered: 1 });
    journal.record(request('c'), { ranked: ranked('n1'), strategy: 's', feasible: 1, considered: 1 });
    expect(journal.history(container('b', 'b'))).toEqual([]);
    expect(journal.history(container('a', 'a')).map((record) => record.node)).toEqual(['n3', 'n4']);
    expect(journal.history(container('c', 'c'))).toHaveLength(1);
  });
});

function scriptedDiscovery(): { discovery: Discovery; entries(list: DiscoveryEntry[]): void; fail(message: string): void } {
  let onEntries: (entries: readonly DiscoveryEntry[]) => void = () => undefined;
  let onError: (error: Error) => void = () => undefined;
  return {
    discovery: {
      watch(entriesListener, errorListener) {
        onEntries = entriesListener;
        onError = errorListener;
        return { stop: () => undefined };
      },
      register: async () => undefined,
      close: async () => undefined,
    },
    entries: (list) => onEntries(list),
    fail: (message) => onError(new Error(message)),
  };
}

describe('monitored discovery', () => {
  it('reports driver until watched, then waiting, ok with the entry count, then failing until a few heartbeats pass without errors', () => {
    let now = 0;
    const scripted = scriptedDiscovery();
    const monitored = new MonitoredDiscovery({
      inner: scripted.discovery,
      uri: 'zk://admin:secret@127.0.0.1:2181/prod',
      heartbeatMs: 1000,
      now: () => now,
    });
    // opened for the leadership only, as with -c kubernetes: the driver finds its nodes itself
    expect(monitored.status().state).toBe('driver');
    const delivered: number[] = [];
    monitored.watch(
      (entries) => delivered.push(entries.length),
      () => undefined,
    );
    expect(monitored.status()).toEqual({
      uri: 'zk://***@127.0.0.1:2181/prod',
      scheme: 'zk',
      state: 'waiting',
      entries: undefined,
      updatedAt: undefined,
      lastError: undefined,
      lastErrorAt: undefined,
    });
    now = 10;
    scripted.entries([
      { host: 'h', port: 1, addr: 'h:1' },
      { host: 'h', port: 2, addr: 'h:2' },
    ]);
    expect(monitored.status()).toMatchObject({ state: 'ok', entries: 2, updatedAt: 10 });
    now = 20;
    scripted.fail('connection lost');
    expect(monitored.status()).toMatchObject({ state: 'failing', entries: 2, lastError: 'connection lost', lastErrorAt: 20 });
    now = 3500;
    expect(monitored.status().state).toBe('ok');
    expect(delivered).toEqual([2]);
    expect(monitored.leadership).toBeUndefined();
  });

  it('redacts credentials from URIs', () => {
    expect(redactDiscoveryUri('etcd://u:p@10.0.0.1:2379,10.0.0.2:2379/x')).toBe('etcd://***@10.0.0.1:2379,10.0.0.2:2379/x');
    expect(redactDiscoveryUri('nodes://10.0.0.[1:3]:2375')).toBe('nodes://10.0.0.[1:3]:2375');
  });
});

describe('web extension paths', () => {
  it('are /swarm/<name>/... except Docker’s swarm operations, and a replica answers them itself', async () => {
    expect(isWebExtensionPath('/swarm/ui/')).toBe(true);
    expect(isWebExtensionPath('/swarm/ui/api/live')).toBe(true);
    expect(isWebExtensionPath('/swarm/init')).toBe(false);
    expect(isWebExtensionPath('/swarm/unlockkey')).toBe(false);
    expect(isWebExtensionPath('/swarm')).toBe(false);
    const replica = new ReplicationController({
      election: {} as never,
      advertise: '127.0.0.1:1',
      logger: { level: 'silent' } as never,
      endpointFor: () => ({ protocol: 'http', host: '127.0.0.1', port: 2 }),
    });
    expect(
      replica.forward({ req: { url: '/swarm/ui/api/status' } as never, res: {} as never, path: '/swarm/ui/api/status' }),
    ).toBeUndefined();
  });
});
