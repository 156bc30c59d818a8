import { type LeaderFollower } from '@swarm/plugin-sdk';
import { distinctLeaderUpdates, SerialRetryTask } from '@swarm/plugin-sdk/helpers';
import { listCandidates } from './zk-candidates.js';
import { readIfPresent } from './zk-node-ops.js';
import type { ZkSession } from './zk-session.js';

export interface ZkLeaderFollowerDeps {
  readonly session: ZkSession;
  readonly key: string;
  readonly onLeader: (leader: string | undefined) => void;
  readonly onError: (error: Error) => void;
}

/** Reports the value of the lowest candidate node under the lock key whenever it changes. */
export class ZkLeaderFollower implements LeaderFollower {
  private readonly session: ZkSession;
  private readonly key: string;

  private readonly report: (leader: string | undefined) => void;
  private readonly reader: SerialRetryTask;

  constructor({ session, key, onLeader, onError }: ZkLeaderFollowerDeps) {
    this.session = session;
    this.key = key;
    this.report = distinctLeaderUpdates(onLeader);
    this.reader = new SerialRetryTask(() => this.read(), onError);
    session.listen({ connected: () => this.reader.trigger() });
    this.reader.trigger();
  }

  stop(): void {
    this.reader.stop();
    this.session.close();
  }

  private async read(): Promise<void> {
    const candidates = await listCandidates(this.session, this.key, () => this.reader.trigger());
    const first = candidates[0];
    const leader = first === undefined ? undefined : await readIfPresent(this.session, `${this.key}/${first}`);
    // The lowest candidate left between the listing and the read: the watch triggers a new read.
    if (first !== undefined && leader === undefined) return;
    this.report(leader);
  }
}
