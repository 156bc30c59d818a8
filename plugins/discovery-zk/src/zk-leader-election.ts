import type { Campaign, CampaignHandlers, LeaderElection, LeaderFollower } from '@swarm/plugin-sdk';
import { ZkCampaign } from './zk-campaign.js';
import type { ZkEndpoint } from './zk-endpoint.js';
import { ZkLeaderFollower } from './zk-leader-follower.js';
import { ZkSession } from './zk-session.js';
import { electionSessionTimeoutMs } from './zk-timing.js';

export interface ZkLeaderElectionDeps {
  readonly endpoint: ZkEndpoint;
  readonly key: string;
  readonly ttlSeconds: number;
  readonly track: (session: ZkSession) => void;
}

/**
 * Leader election under one ZooKeeper key. Each campaign and each follower has its own session,
 * short enough that a dead leader's candidate node is gone within the election TTL.
 */
export class ZkLeaderElection implements LeaderElection {
  private readonly endpoint: ZkEndpoint;
  readonly key: string;
  private readonly ttlSeconds: number;
  private readonly track: (session: ZkSession) => void;

  constructor({ endpoint, key, ttlSeconds, track }: ZkLeaderElectionDeps) {
    this.endpoint = endpoint;
    this.key = key;
    this.ttlSeconds = ttlSeconds;
    this.track = track;
  }

  campaign(value: string, handlers: CampaignHandlers): Campaign {
    return new ZkCampaign({ session: this.openSession(handlers.onError), key: this.key, value, ttlSeconds: this.ttlSeconds, handlers });
  }

  follow(onLeader: (leader: string | undefined) => void, onError: (error: Error) => void): LeaderFollower {
    return new ZkLeaderFollower({ session: this.openSession(onError), key: this.key, onLeader, onError });
  }

  private openSession(onError: ((error: Error) => void) | undefined): ZkSession {
    const session = new ZkSession({
      endpoint: this.endpoint,
      sessionTimeoutMs: electionSessionTimeoutMs(this.ttlSeconds),
      onError: onError ?? (() => undefined),
    });
    this.track(session);
    return session;
  }
}

/** A join TTL in seconds as a ZooKeeper session timeout (the server clamps it to its own bounds). */
export function sessionTimeoutMs(ttlSeconds: number): number {
  return Math.max(2000, Math.round(ttlSeconds * 1000));
}
