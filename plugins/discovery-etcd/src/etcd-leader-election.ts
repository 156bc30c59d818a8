import type { Etcd3 } from 'etcd3';
import type { Campaign, CampaignHandlers, LeaderElection, LeaderFollower } from '@swarm/plugin-sdk';
import { EtcdCampaign } from './etcd-campaign.js';
import { EtcdLeaderFollower } from './etcd-leader-follower.js';

export interface EtcdLeaderElectionDeps {
  readonly client: Etcd3;
  readonly key: string;
  readonly ttlSeconds: number;
}

export class EtcdLeaderElection implements LeaderElection {
  private readonly client: Etcd3;
  readonly key: string;
  private readonly ttlSeconds: number;

  constructor({ client, key, ttlSeconds }: EtcdLeaderElectionDeps) {
    this.client = client;
    this.key = key;
    this.ttlSeconds = ttlSeconds;
  }

  campaign(value: string, handlers: CampaignHandlers): Campaign {
    return new EtcdCampaign({ client: this.client, key: this.key, value, ttlSeconds: this.ttlSeconds, handlers });
  }

  follow(onLeader: (leader: string | undefined) => void, onError: (error: Error) => void): LeaderFollower {
    return new EtcdLeaderFollower({ client: this.client, key: this.key, onLeader, onError });
  }
}
