import type { Etcd3 } from 'etcd3';
import { type LeaderFollower } from '@swarm/plugin-sdk';
import { distinctLeaderUpdates } from '@swarm/plugin-sdk/helpers';
import { SnapshotWatch } from './snapshot-watch.js';

export interface EtcdLeaderFollowerDeps {
  readonly client: Etcd3;
  readonly key: string;
  readonly onLeader: (leader: string | undefined) => void;
  readonly onError: (error: Error) => void;
}

/** Reports the lock key's value (the leader's address) whenever it changes. */
export class EtcdLeaderFollower implements LeaderFollower {
  private readonly watch: SnapshotWatch;

  constructor({ client, key, onLeader, onError }: EtcdLeaderFollowerDeps) {
    const report = distinctLeaderUpdates(onLeader);
    this.watch = new SnapshotWatch({
      client,
      range: { key },
      handlers: {
        snapshot: (kvs) => report(kvs[0]?.value.toString()),
        put: (kv) => report(kv.value.toString()),
        delete: () => report(undefined),
        error: onError,
      },
    });
  }

  stop(): void {
    this.watch.stop();
  }
}
