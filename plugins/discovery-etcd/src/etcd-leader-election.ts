import type { Etcd3 } from 'etcd3';
import type { Campaign, CampaignHandlers, LeaderElection, LeaderFollower } from '@swarm/plugin-sdk';
import { EtcdCampaign } from './etcd-campaign.js';
import { EtcdLeaderFollower } from './etcd-leader-follower.js';

export class EtcdLeaderElection implements LeaderElection {
  constructor(
    private readonly client: Etcd3,
    readonly key: string,
    private readonly ttlSeconds: number,
  ) {}

  campaign(value: string, handlers: CampaignHandlers): Campaign {
    return new EtcdCampaign(this.client, this.key, value, this.ttlSeconds, handlers);
  }

  follow(onLeader: (leader: string | undefined) => void, onError: (error: Error) => void): LeaderFollower {
    return new EtcdLeaderFollower(this.client, this.key, onLeader, onError);
  }
}
