import { type Discovery, type DiscoveryEntry, type DiscoveryOptions, type DiscoveryWatcher, type LeaderElection } from '@swarm/plugin-sdk';
import { joinKeyPath, parseDiscoveryEntry, type KvDiscoveryTarget } from '@swarm/plugin-sdk/helpers';
import { ZkLeaderElection, sessionTimeoutMs } from './zk-leader-election.js';
import { plainEndpoint, type ZkEndpoint } from './zk-endpoint.js';
import { CALL_TIMEOUT_MS, ensureEphemeral } from './zk-node-ops.js';
import { ZkNodesWatch } from './zk-nodes-watch.js';
import { ZkSession } from './zk-session.js';
import { ZkTlsBridge } from './zk-tls-bridge.js';

/**
 * `zk://h1:p,h2:p/prefix`: engines are ephemeral nodes `<prefix>/docker/swarm/nodes/<ip:port>`
 * holding `ip:port`, so an engine whose `swarm join` dies disappears when its session (timeout =
 * the join TTL) expires. With kv.cacertfile/certfile/keyfile, every session goes through TLS.
 */
export class ZkDiscovery implements Discovery {
  private session: ZkSession | undefined;
  private endpoint: ZkEndpoint | undefined;
  private readonly watchers = new Set<DiscoveryWatcher>();
  private readonly errorSinks = new Set<(error: Error) => void>();
  private readonly electionSessions = new Set<ZkSession>();

  constructor(
    private readonly target: KvDiscoveryTarget,
    private readonly options: DiscoveryOptions,
  ) {}

  watch(onEntries: (entries: readonly DiscoveryEntry[]) => void, onError: (error: Error) => void): DiscoveryWatcher {
    this.errorSinks.add(onError);
    const watch = new ZkNodesWatch({ session: this.sharedSession(), path: `/${this.target.nodesPath}`, onEntries, onError });
    const watcher: DiscoveryWatcher = {
      stop: () => {
        watch.stop();
        this.errorSinks.delete(onError);
        this.watchers.delete(watcher);
      },
    };
    this.watchers.add(watcher);
    return watcher;
  }

  async register(addr: string): Promise<void> {
    const entry = parseDiscoveryEntry(addr);
    await ensureEphemeral(this.sharedSession(), `/${joinKeyPath(this.target.nodesPath, entry.addr)}`, entry.addr, CALL_TIMEOUT_MS);
  }

  leadership(key: string, ttlSeconds: number): LeaderElection {
    return new ZkLeaderElection({
      endpoint: this.transport(),
      key: `/${joinKeyPath(this.target.prefix, key)}`,
      ttlSeconds,
      track: (session) => this.electionSessions.add(session),
    });
  }

  async close(): Promise<void> {
    for (const watcher of [...this.watchers]) watcher.stop();
    for (const session of this.electionSessions) session.close();
    this.electionSessions.clear();
    this.session?.close();
    this.session = undefined;
    this.endpoint?.close();
    this.endpoint = undefined;
  }

  private transport(): ZkEndpoint {
    const { hosts, tls } = this.target;
    this.endpoint ??= tls === undefined ? plainEndpoint(hosts) : new ZkTlsBridge(hosts, tls);
    return this.endpoint;
  }

  private sharedSession(): ZkSession {
    this.session ??= new ZkSession({
      endpoint: this.transport(),
      sessionTimeoutMs: sessionTimeoutMs(this.options.ttl),
      onError: (error) => {
        for (const sink of this.errorSinks) sink(error);
      },
    });
    return this.session;
  }
}
