import { EtcdLeaseInvalidError, type Etcd3, type Lease } from 'etcd3';
import { withTimeout } from './etcd-client.js';

export interface LeaseRenewal {
  readonly id: string;
  /** True when the previous lease had expired (its keys are gone) and a new one was granted. */
  readonly fresh: boolean;
  /** Until when (local clock) the lease is certainly alive: the time the request was sent + TTL. */
  readonly validUntil: number;
  /** The TTL etcd reports for the lease on a keepalive (it may raise a TTL below its minimum). */
  readonly grantedSeconds?: number;
}

/** An etcd lease renewed on demand (once per heartbeat), re-granted when it has expired. */
export class RenewableLease {
  private lease: Lease | undefined;
  private leaseId: string | undefined;

  constructor(
    private readonly client: Etcd3,
    private readonly ttlSeconds: number,
  ) {}

  get id(): string | undefined {
    return this.leaseId;
  }

  async renew(): Promise<LeaseRenewal> {
    const sentAt = Date.now();
    const validUntil = sentAt + this.ttlSeconds * 1000;
    if (this.lease !== undefined && this.leaseId !== undefined) {
      try {
        const answer = await withTimeout(this.lease.keepaliveOnce(), 'lease keepalive');
        return { id: this.leaseId, fresh: false, validUntil, grantedSeconds: Number(answer.TTL) };
      } catch (error) {
        if (!(error instanceof EtcdLeaseInvalidError)) throw error;
        this.drop();
      }
    }
    const lease = this.client.lease(this.ttlSeconds, { autoKeepAlive: false });
    try {
      const id = await withTimeout(lease.grant(), 'lease grant');
      this.lease = lease;
      this.leaseId = id;
      return { id, fresh: true, validUntil };
    } catch (error) {
      lease.release();
      throw error;
    }
  }

  /** Revokes the lease (deleting its keys) when the store answers; forgets it either way. */
  async revoke(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    this.leaseId = undefined;
    if (lease !== undefined) await withTimeout(lease.revoke(), 'lease revoke').catch(() => undefined);
  }

  private drop(): void {
    this.lease?.release();
    this.lease = undefined;
    this.leaseId = undefined;
  }
}
