import type { Etcd3 } from 'etcd3';
import { type LeaderFollower } from '@swarm/plugin-sdk';
import { distinctLeaderUpdates } from '@swarm/plugin-sdk/helpers';
import { SnapshotWatch } from './snapshot-watch.js';

/** Reports the lock key's value (the leader's address) whenever it changes. */
export class EtcdLeaderFollower implements LeaderFollower {
  private readonly watch: SnapshotWatch;

  constructor(client: Etcd3, key: string, onLeader: (leader: string | undefined) => void, onError: (error: Error) => void) {
    const report = distinctLeaderUpdates(onLeader);
    this.watch = new SnapshotWatch(
      client,
      { key },
      {
        snapshot: (kvs) => report(kvs[0]?.value.toString()),
        put: (kv) => report(kv.value.toString()),
        delete: () => report(undefined),
        error: onError,
      },
    );
  }

  stop(): void {
    this.watch.stop();
  }
}
