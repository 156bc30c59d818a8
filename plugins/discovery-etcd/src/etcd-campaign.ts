import type { Etcd3 } from 'etcd3';
import { ErrorCodes, isSwarmError, type SwarmError, type Campaign, type CampaignHandlers } from '@swarm/plugin-sdk';
import { asError, storeRetryDelayMs } from '@swarm/plugin-sdk/helpers';
import { electionLeaseSeconds, ttlWarning } from './etcd-timing.js';
import { RenewableLease, type LeaseRenewal } from './renewable-lease.js';
import { EtcdErrors } from './errors.js';

const lost = (reason: string): SwarmError => EtcdErrors.storeFailure({ reason });

/** How often the leader renews within one lease TTL (so a slow answer or two is survived). */
const RENEWALS_PER_LEASE = 4;

export interface EtcdCampaignDeps {
  readonly client: Etcd3;
  readonly key: string;
  readonly value: string;
  readonly ttlSeconds: number;
  readonly handlers: CampaignHandlers;
}

/**
 * A candidate for the lock key: the key is created in a transaction only if absent, attached to
 * this candidate's lease (shorter than the replication TTL, see etcd-timing). The others watch
 * the key and try again the moment it is deleted. The leader renews the lease every quarter of its
 * TTL and steps down the moment the lease or the key is gone, or its last successful renewal is
 * about to run out, so it never leads on a lease the store may already have expired (a renewal
 * that merely fails is retried until then); `isLeader` checks that
 * deadline itself, so a process frozen past it never answers as the leader.
 */
export class EtcdCampaign implements Campaign {
  private readonly client: Etcd3;
  private readonly key: string;
  private readonly value: string;
  private readonly ttlSeconds: number;
  private readonly handlers: CampaignHandlers;

  private readonly lease: RenewableLease;
  private leader = false;
  private validUntil = 0;
  private warnedSeconds = 0;
  private readonly leaseSeconds: number;
  private stopped = false;
  private wake: (() => void) | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private readonly running: Promise<void>;

  constructor({ client, key, value, ttlSeconds, handlers }: EtcdCampaignDeps) {
    this.client = client;
    this.key = key;
    this.value = value;
    this.ttlSeconds = ttlSeconds;
    this.handlers = handlers;
    this.leaseSeconds = electionLeaseSeconds(ttlSeconds);
    this.lease = new RenewableLease(client, this.leaseSeconds);
    this.checkTtl(this.leaseSeconds);
    this.running = this.run();
  }

  isLeader(): boolean {
    return this.leader && Date.now() < this.validUntil;
  }

  async resign(): Promise<void> {
    this.stopped = true;
    this.leader = false;
    clearTimeout(this.deadline);
    this.wake?.();
    await this.running;
    // Revoking deletes the lock key with it, so the next candidate takes over at once.
    await this.lease.revoke();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        const attempt = await this.acquire();
        if (this.stopped) break;
        if (attempt.held) {
          this.elect(attempt.validUntil);
          await this.hold();
        } else {
          await this.waitForChange(attempt.revision);
        }
        failures = 0;
      } catch (error) {
        if (this.stopped) break;
        const reason = asError(error);
        this.stepDown(reason);
        this.handlers.onError?.(reason);
        await this.sleep(storeRetryDelayMs(failures++));
      }
    }
  }

  private async acquire(): Promise<{ held: boolean; revision: string; validUntil: number }> {
    const renewal = await this.lease.renew();
    const result = await this.client
      .if(this.key, 'Create', '==', 0)
      .then(this.client.put(this.key).value(this.value).lease(renewal.id))
      .else(this.client.get(this.key))
      .commit();
    const holder = result.responses[0]?.response_range?.kvs[0];
    // After a store restart the key may still be ours (same lease): take it back.
    const held = result.succeeded || (holder !== undefined && holder.lease === renewal.id && holder.value.toString() === this.value);
    return { held, revision: result.header.revision, validUntil: renewal.validUntil };
  }

  private async hold(): Promise<void> {
    while (!this.stopped && this.leader) {
      await this.sleep((this.leaseSeconds * 1000) / RENEWALS_PER_LEASE);
      if (this.stopped || !this.leader) return;
      try {
        await this.confirm();
      } catch (error) {
        if (isSwarmError(error, ErrorCodes.DISCOVERY_FAILED)) throw error;
        // Not known lost: the deadline decides, until then the next renewal may get through.
        this.handlers.onError?.(asError(error));
      }
    }
  }

  private async confirm(): Promise<void> {
    const [renewal, holder] = await Promise.all([
      this.lease.renew(),
      this.client
        .get(this.key)
        .exec()
        .then((answer) => answer.kvs[0]),
    ]);
    this.checkGranted(renewal);
    if (renewal.fresh) throw lost(`the lease on ${this.key} expired, stepping down`);
    if (holder === undefined || holder.lease !== renewal.id) throw lost(`${this.key} was removed or taken over, stepping down`);
    this.armDeadline(renewal.validUntil);
  }

  private async waitForChange(revision: string): Promise<void> {
    const watcher = this.client
      .watch()
      .key(this.key)
      .startRevision(String(Number(revision) + 1))
      .watcher();
    try {
      // Without an event (missed while reconnecting), try again once a lease could have expired.
      await this.sleep(this.leaseSeconds * 1000, (done) => {
        watcher.on('put', done);
        watcher.on('delete', done);
        watcher.on('error', done);
      });
    } finally {
      watcher.removeAllListeners();
      watcher.on('error', () => undefined);
      void watcher.cancel().catch(() => undefined);
    }
  }

  private elect(validUntil: number): void {
    this.armDeadline(validUntil);
    if (this.leader) return;
    this.leader = true;
    this.handlers.onElected();
  }

  private armDeadline(validUntil: number): void {
    clearTimeout(this.deadline);
    // etcd revokes a lease no earlier than one TTL after it received the renewal; the margin
    // covers serving a request that started just before the deadline.
    const margin = Math.min(500, (this.leaseSeconds * 1000) / 10);
    this.validUntil = validUntil - margin;
    this.deadline = setTimeout(
      () => {
        this.stepDown(lost(`could not renew the lease on ${this.key} in time, stepping down`));
        this.wake?.();
      },
      Math.max(0, this.validUntil - Date.now()),
    );
  }

  private checkGranted(renewal: LeaseRenewal): void {
    if (renewal.grantedSeconds !== undefined && renewal.grantedSeconds > this.leaseSeconds) this.checkTtl(renewal.grantedSeconds);
  }

  /** Warns once per lease length that cannot honour the replication TTL. */
  private checkTtl(leaseSeconds: number): void {
    if (leaseSeconds <= this.warnedSeconds) return;
    const warning = ttlWarning(leaseSeconds, this.ttlSeconds);
    if (warning === undefined) return;
    this.warnedSeconds = leaseSeconds;
    this.handlers.onWarning?.(warning);
  }

  private stepDown(reason: Error): void {
    clearTimeout(this.deadline);
    if (!this.leader) return;
    this.leader = false;
    this.handlers.onLost(reason);
  }

  /** Waits `ms`, or less when `resign`, the deadline or an `arm`ed event wakes it. */
  private sleep(ms: number, arm?: (done: () => void) => void): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      arm?.(done);
    });
  }
}
