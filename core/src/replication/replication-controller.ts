import type { Campaign, ClusterRole, EngineEndpoint, LeaderElection, LeaderFollower, Logger } from '@swarm/plugin-sdk';
import { isWebExtensionPath } from '../http/web-paths.js';
import { EngineClient } from '@swarm/plugin-sdk/helpers';
import { forwardToEngine } from '../forwarding/index.js';
import { sendError } from '../http/responses.js';
import type { IncomingApiRequest, ManagerRole } from './manager-role.js';
import { CoreErrors } from '../errors.js';

/**
 * Paths a replica answers itself, as Swarm classic's replica handler, plus web extensions (they
 * only read, and a view of the replica itself stays available while the primary is away).
 */
// A replica answers its own health and metrics: an orchestrator probes, and Prometheus scrapes,
// each manager, not the primary through it (a replica's memory, descriptors and forwarding counts
// are its own).
const LOCAL_PATHS = new Set(['/_ping', '/info', '/_swarm/healthz', '/_swarm/readyz', '/_swarm/metrics']);

function servedLocally(path: string): boolean {
  return LOCAL_PATHS.has(path) || isWebExtensionPath(path);
}

export interface ReplicationControllerOptions {
  readonly election: LeaderElection;
  /** This manager's advertise address (the lock's value while it leads). */
  readonly advertise: string;
  readonly logger: Logger;
  /** How to reach a primary's API from its advertise address. */
  readonly endpointFor: (advertise: string) => EngineEndpoint;
  /** `--replication-ttl`, for messages. */
  readonly ttlSeconds?: number;
  /** Told when this manager becomes primary or replica (the cluster acts on engines only as primary). */
  readonly onRoleChange?: (role: ClusterRole) => void;
}

/**
 * Campaigns for the replication lock and follows who holds it. While elected, this manager is
 * the primary and its API serves every request; otherwise it is a replica that answers `/_ping`
 * and `/info` and forwards the rest (streams and hijacked connections included) to the primary.
 */
export class ReplicationController implements ManagerRole {
  private campaign: Campaign | undefined;
  private follower: LeaderFollower | undefined;
  private leader: string | undefined;
  /** Kept-alive connections to the current primary's API (replaced when another manager leads). */
  private target: { advertise: string; client: EngineClient } | undefined;

  constructor(private readonly options: ReplicationControllerOptions) {}

  /** This manager's own advertise address. */
  get advertise(): string {
    return this.options.advertise;
  }

  get isPrimary(): boolean {
    return this.campaign?.isLeader() ?? false;
  }

  /** The primary's advertise address as last read from the store. */
  get primary(): string | undefined {
    return this.isPrimary ? this.options.advertise : this.leader;
  }

  start(): void {
    const { election, advertise, logger, onRoleChange } = this.options;
    onRoleChange?.('replica');
    this.follower = election.follow(
      (leader) => {
        this.leader = leader;
        if (leader !== undefined) logger.info({ leader }, `New leader elected: ${leader}`);
      },
      (error) => logger.warn({ err: error.message }, 'Leader Election: cannot follow the leader'),
    );
    this.campaign = election.campaign(advertise, {
      onElected: () => {
        logger.info({ advertise }, 'Leader Election: Cluster leadership acquired');
        onRoleChange?.('primary');
      },
      onLost: (reason) => {
        logger.warn({ reason: reason.message }, 'Leader Election: Cluster leadership lost');
        onRoleChange?.('replica');
      },
      onError: (error) => logger.warn({ err: error.message }, 'Leader Election: store failure, retrying'),
      onWarning: (message) => logger.warn({ ttl: this.options.ttlSeconds }, `Leader Election: ${message}`),
    });
  }

  /**
   * Gives up the leadership now, so another manager takes over at once, while this one still
   * forwards what its clients have in flight; `stop` ends the rest.
   */
  async resign(): Promise<void> {
    const campaign = this.campaign;
    this.campaign = undefined;
    await campaign?.resign();
  }

  async stop(): Promise<void> {
    this.follower?.stop();
    this.follower = undefined;
    await this.resign();
    this.target?.client.close();
    this.target = undefined;
  }

  statusRows(): Array<[string, string]> {
    if (this.isPrimary) return [['Role', 'primary']];
    return [
      ['Role', 'replica'],
      ['Primary', this.leader ?? ''],
    ];
  }

  forward(request: IncomingApiRequest): Promise<void> | undefined {
    if (this.isPrimary || servedLocally(request.path)) return undefined;
    const target = this.primaryTarget();
    const url = request.req.url ?? '/';
    if (!target) {
      // Our own address while not elected means the store has not caught up: forwarding would loop.
      sendError(request.res, CoreErrors.noPrimary());
      request.req.resume();
      return Promise.resolve();
    }
    return forwardToEngine(target, url, request, { kind: 'primary' });
  }

  private primaryTarget(): EngineClient | undefined {
    const leader = this.leader;
    if (leader === undefined || leader === this.options.advertise) return undefined;
    if (this.target?.advertise !== leader) {
      this.target?.client.close();
      this.target = { advertise: leader, client: new EngineClient(this.options.endpointFor(leader)) };
    }
    return this.target.client;
  }
}
