import type { Client, ZkError } from 'node-zookeeper-client';
import { leaderEntry, parseMasterInfo, type MasterAddress } from './master-info.js';
import { isNoAuth, isNoNode } from './zk-session.js';

/** While the group is missing or unreadable there is no watch to wake us: look again this often. */
const RETRY_MS = 1000;

export interface LeaderListener {
  leader(address: MasterAddress): void;
  /** No leader right now (empty group, unreadable entry): the reason, for logs and `info`; `denied` when an ACL refused the read. */
  noLeader(why: string, kind?: 'denied'): void;
}

/**
 * Follows the Mesos master group in ZooKeeper: watches the children of `path`, reads the lowest
 * `json.info_<seq>` and reports its address whenever it changes.
 */
export class ZkLeaderDetector {
  private current: string | undefined;
  private client: Client | undefined;

  constructor(
    private readonly path: string,
    private readonly listener: LeaderListener,
  ) {}

  /** Call on every (re)connected session. */
  attach(client: Client): void {
    this.client = client;
    this.current = undefined;
    this.refresh();
  }

  detach(): void {
    this.client = undefined;
  }

  private retryLater(client: Client): void {
    setTimeout(() => {
      if (this.client === client) this.refresh();
    }, RETRY_MS).unref();
  }

  private failed(client: Client, error: ZkError, node: string): void {
    if (isNoNode(error)) this.listener.noLeader(`no Mesos master registered under ${this.path}`);
    else if (isNoAuth(error)) this.listener.noLeader(`ZooKeeper denied reading ${node} (NO_AUTH)`, 'denied');
    else this.listener.noLeader(`ZooKeeper: ${error.message}`);
    if (isNoNode(error) || isNoAuth(error)) this.retryLater(client);
  }

  private refresh(): void {
    const client = this.client;
    if (!client) return;
    client.getChildren(
      this.path,
      () => this.refresh(),
      (error, children) => {
        if (this.client !== client) return;
        if (error) {
          this.failed(client, error, this.path);
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
          if (readError) {
            this.failed(client, readError, `${this.path}/${entry}`);
            return;
          }
          if (!data) {
            this.listener.noLeader(`cannot read ${this.path}/${entry}: empty`);
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
      },
    );
  }
}
