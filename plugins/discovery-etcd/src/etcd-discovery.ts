import type { Etcd3 } from 'etcd3';
import { type Discovery, type DiscoveryEntry, type DiscoveryOptions, type DiscoveryWatcher, type LeaderElection } from '@swarm/plugin-sdk';
import { joinKeyPath, parseDiscoveryEntry, type KvDiscoveryTarget } from '@swarm/plugin-sdk/helpers';
import { createEtcdClient } from './etcd-client.js';
import { EtcdLeaderElection } from './etcd-leader-election.js';
import { EtcdNodesWatch } from './etcd-nodes-watch.js';
import { RenewableLease } from './renewable-lease.js';

/**
 * `etcd://h1:p,h2:p/prefix` (etcd v3): engines are keys `<prefix>/docker/swarm/nodes/<ip:port>`
 * holding `ip:port`, attached to a lease of the join TTL that every `register` renews.
 */
export class EtcdDiscovery implements Discovery {
  private client: Etcd3 | undefined;
  private registration: RenewableLease | undefined;
  private readonly watchers = new Set<DiscoveryWatcher>();

  constructor(
    private readonly target: KvDiscoveryTarget,
    private readonly options: DiscoveryOptions,
  ) {}

  watch(onEntries: (entries: readonly DiscoveryEntry[]) => void, onError: (error: Error) => void): DiscoveryWatcher {
    const watch = new EtcdNodesWatch({ client: this.etcd(), prefix: `${this.target.nodesPath}/`, onEntries, onError });
    const watcher: DiscoveryWatcher = {
      stop: () => {
        watch.stop();
        this.watchers.delete(watcher);
      },
    };
    this.watchers.add(watcher);
    return watcher;
  }

  async register(addr: string): Promise<void> {
    const entry = parseDiscoveryEntry(addr);
    const client = this.etcd();
    this.registration ??= new RenewableLease(client, this.options.ttl);
    const { id } = await this.registration.renew();
    const key = joinKeyPath(this.target.nodesPath, entry.addr);
    // Rewrite only when missing or stale, so a heartbeat does not wake every watcher.
    await client.if(key, 'Lease', '==', id).and(key, 'Value', '==', entry.addr).else(client.put(key).value(entry.addr).lease(id)).commit();
  }

  leadership(key: string, ttlSeconds: number): LeaderElection {
    return new EtcdLeaderElection({ client: this.etcd(), key: joinKeyPath(this.target.prefix, key), ttlSeconds });
  }

  async close(): Promise<void> {
    for (const watcher of [...this.watchers]) watcher.stop();
    this.client?.close();
    this.client = undefined;
    this.registration = undefined;
  }

  private etcd(): Etcd3 {
    this.client ??= createEtcdClient(this.target);
    return this.client;
  }
}
