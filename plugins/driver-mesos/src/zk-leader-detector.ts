import type { Client } from 'node-zookeeper-client';
import { leaderEntry, parseMasterInfo, type MasterAddress } from './master-info.js';
import { isNoNode } from './zk-session.js';

export interface LeaderListener {
  leader(address: MasterAddress): void;
  /** No leader right now (empty group, unreadable entry): the reason, for logs and `info`. */
  noLeader(why: string): void;
}

/**
 * Follows the Mesos master group in ZooKeeper: watches the children of `path`, reads the lowest
 * `json.info_<seq>` and reports its address whenever it changes.
 */
export class ZkLeaderDetector {
  private current: string | undefined;
  private client: Client | undefined;

  constructor(private readonly path: string, private readonly listener: LeaderListener) {}

  /** Call on every (re)connected session. */
  attach(client: Client): void {
    this.client = client;
    this.current = undefined;
    this.refresh();
  }

  detach(): void {
    this.client = undefined;
  }

  private refresh(): void {
    const client = this.client;
    if (!client) return;
    client.getChildren(this.path, () => this.refresh(), (error, children) => {
      if (this.client !== client) return;
      if (error) {
        this.listener.noLeader(isNoNode(error) ? `no Mesos master registered under ${this.path}` : `ZooKeeper: ${error.message}`);
        if (isNoNode(error)) setTimeout(() => this.refresh(), 1000).unref();
        return;
      }
      const entry = leaderEntry(children);
      if (!entry) {
        this.current = undefined;
        this.listener.noLeader(`no Mesos master registered under ${this.path}`);
        return;
      }
      if (entry === this.current) return;
      client.getData(`${this.path}/${entry}`, undefined, (readError, data) => {
        if (this.client !== client) return;
        if (readError || !data) {
          this.listener.noLeader(`cannot read ${this.path}/${entry}: ${readError?.message ?? 'empty'}`);
          return;
        }
        try {
          const address = parseMasterInfo(data.toString('utf8'));
          this.current = entry;
          this.listener.leader(address);
        } catch (parseError) {
          this.listener.noLeader(`${this.path}/${entry}: ${(parseError as Error).message}`);
        }
      });
    });
  }
}
