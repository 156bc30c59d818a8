import { Etcd3 } from 'etcd3';

/** Under this prefix (`etcd://127.0.0.1:PORT/soak`) the managers find engines and elect a primary. */
export const PREFIX = 'soak';
const NODES = `${PREFIX}/docker/swarm/nodes`;
const LEADER = `${PREFIX}/docker/swarm/leader`;

/**
 * The discovery entries in etcd, written as `swarm join` writes them (`<prefix>/docker/swarm/nodes/
 * <ip:port>` holding `ip:port`), without a lease: the soak decides when an entry goes and comes
 * back, rather than 200 join processes.
 */
export class Store {
  private readonly client: Etcd3;

  constructor(port: number) {
    this.client = new Etcd3({ hosts: `http://127.0.0.1:${port}` });
  }

  async register(addr: string): Promise<void> {
    await this.client.put(`${NODES}/${addr}`).value(addr);
  }

  async unregister(addr: string): Promise<void> {
    await this.client.delete().key(`${NODES}/${addr}`);
  }

  /**
   * Removes the election's lock key: the primary steps down at its next renewal (it finds the key
   * gone) and the replica, which watches the key, takes it at once. A failover without a restart,
   * as when the store loses the primary's lease.
   */
  async dropLeader(): Promise<void> {
    await this.client.delete().key(LEADER);
  }

  close(): void {
    this.client.close();
  }
}
