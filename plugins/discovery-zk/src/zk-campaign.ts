import { type Campaign, type CampaignHandlers } from '@swarm/plugin-sdk';
import { SerialRetryTask } from '@swarm/plugin-sdk/helpers';
import { CANDIDATE_PREFIX, listCandidates } from './zk-candidates.js';
import { CALL_TIMEOUT_MS, exists, removeIfPresent } from './zk-node-ops.js';
import { ZkCreateMode, type ZkSession } from './zk-session.js';
import { ttlWarning } from './zk-timing.js';
import { ZkErrors } from './errors.js';

/** How often a leader proves its session within one session timeout (so a slow answer or two is survived). */
const RECONFIRMATIONS_PER_TIMEOUT = 5;

export interface ZkCampaignDeps {
  readonly session: ZkSession;
  readonly key: string;
  readonly value: string;
  readonly ttlSeconds: number;
  readonly handlers: CampaignHandlers;
}

/**
 * ZooKeeper's leader election recipe: every candidate owns an ephemeral sequential node under the
 * lock key; the lowest one leads, the others watch their predecessor.
 *
 * The leader must stop leading before the server can expire its session. It re-confirms its
 * node every fifth of the session timeout; the server cannot expire the session earlier than one
 * timeout after it received that request, so the leader steps down when a timeout (less a
 * margin) has passed since the last confirmed request was sent, and at once on a disconnect,
 * without waiting for the client library to notice anything else. `isLeader` checks that
 * deadline itself, so a process that was frozen past it never answers as the leader.
 */
export class ZkCampaign implements Campaign {
  private readonly session: ZkSession;
  private readonly key: string;
  private readonly value: string;
  private readonly ttlSeconds: number;
  private readonly handlers: CampaignHandlers;

  private node: string | undefined;
  private leader = false;
  private resigned = false;
  private validUntil = 0;
  private warned = false;
  private deadline: NodeJS.Timeout | undefined;
  private reconfirm: NodeJS.Timeout | undefined;
  private readonly evaluator: SerialRetryTask;

  constructor({ session, key, value, ttlSeconds, handlers }: ZkCampaignDeps) {
    this.session = session;
    this.key = key;
    this.value = value;
    this.ttlSeconds = ttlSeconds;
    this.handlers = handlers;
    this.evaluator = new SerialRetryTask(
      () => this.evaluate(),
      (error) => handlers.onError?.(error),
    );
    session.listen({
      connected: (fresh) => {
        if (fresh) this.node = undefined;
        this.checkGrantedTimeout();
        this.evaluator.trigger();
      },
      disconnected: () => this.stepDown('lost the ZooKeeper connection, stepping down'),
    });
    this.evaluator.trigger();
  }

  isLeader(): boolean {
    return this.leader && Date.now() < this.validUntil;
  }

  async resign(): Promise<void> {
    this.resigned = true;
    this.evaluator.stop();
    this.leader = false;
    this.clearTimers();
    const node = this.node;
    this.node = undefined;
    if (node !== undefined && this.session.connected) await removeIfPresent(this.session, node, CALL_TIMEOUT_MS).catch(() => undefined);
    // Closing the session removes the candidate node even when the store was unreachable.
    this.session.close();
  }

  private async evaluate(): Promise<void> {
    const sentAt = Date.now();
    // A leader's node stays the lowest while it exists (sequence numbers only grow): one read proves it.
    if (this.leader && this.node !== undefined && (await exists(this.session, this.node))) {
      if (this.session.connected) this.confirmLeadership(sentAt);
      return;
    }
    if (this.node === undefined || !(await exists(this.session, this.node))) {
      await this.session.call<string>(CALL_TIMEOUT_MS, (client, done) => client.mkdirp(this.key, done));
      this.node = await this.session.call<string>(CALL_TIMEOUT_MS, (client, done) =>
        client.create(`${this.key}/${CANDIDATE_PREFIX}`, Buffer.from(this.value), ZkCreateMode.EPHEMERAL_SEQUENTIAL, done),
      );
    }
    const candidates = await listCandidates(this.session, this.key);
    const index = candidates.indexOf(this.node.slice(this.node.lastIndexOf('/') + 1));
    if (index === -1) {
      this.node = undefined;
      throw ZkErrors.storeFailure({ reason: `candidate node vanished from ${this.key}` });
    }
    if (index === 0) {
      if (this.session.connected) this.confirmLeadership(sentAt);
      return;
    }
    this.stepDown(`another candidate holds ${this.key}`);
    const predecessor = `${this.key}/${candidates[index - 1]!}`;
    if (!(await exists(this.session, predecessor, () => this.evaluator.trigger()))) this.evaluator.trigger();
  }

  private confirmLeadership(sentAt: number): void {
    // A check that was in flight when resign() ran must not make this candidate lead again.
    if (this.resigned) return;
    const timeout = this.session.timeoutMs();
    // The server expires a session no earlier than one timeout after it received our request; the
    // margin covers serving a request that started just before the deadline.
    const margin = Math.min(500, timeout / 10);
    this.validUntil = sentAt + timeout - margin;
    clearTimeout(this.deadline);
    this.deadline = setTimeout(
      () => this.stepDown('could not confirm the ZooKeeper session in time, stepping down'),
      Math.max(0, this.validUntil - Date.now()),
    );
    clearTimeout(this.reconfirm);
    this.reconfirm = setTimeout(() => this.evaluator.trigger(), timeout / RECONFIRMATIONS_PER_TIMEOUT);
    if (this.leader) return;
    this.leader = true;
    this.handlers.onElected();
  }

  private checkGrantedTimeout(): void {
    if (this.warned) return;
    const warning = ttlWarning(this.session.requestedTimeoutMs, this.session.timeoutMs(), this.ttlSeconds);
    if (warning === undefined) return;
    this.warned = true;
    this.handlers.onWarning?.(warning);
  }

  private clearTimers(): void {
    clearTimeout(this.deadline);
    clearTimeout(this.reconfirm);
  }

  private stepDown(reason: string): void {
    if (!this.leader) return;
    this.leader = false;
    this.clearTimers();
    this.handlers.onLost(ZkErrors.storeFailure({ reason }));
  }
}
