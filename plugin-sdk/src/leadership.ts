/**
 * Leader election through a discovery store, with docker/leadership's semantics: candidates race
 * for one lock whose value is the winner's advertise address; a candidate that cannot be sure it
 * still holds the lock (store session lost, lease not renewed in time) steps down at once, so
 * there are never two leaders. Followers watch the lock's value.
 */

export interface CampaignHandlers {
  /** This candidate now holds the lock. */
  onElected(): void;
  /**
   * This candidate no longer holds the lock (or can no longer prove it does): stop acting as the
   * leader immediately. The campaign goes on and may call `onElected` again later.
   */
  onLost(reason: Error): void;
  /** Store failures the campaign keeps retrying through. */
  onError?(error: Error): void;
  /**
   * The store cannot honour the election TTL (for example ZooKeeper granted a longer session
   * than asked for): leadership still works, but a failover may take longer than the TTL.
   */
  onWarning?(message: string): void;
}

export interface Campaign {
  isLeader(): boolean;
  /** Stop campaigning; a leader releases the lock so another candidate takes over at once. */
  resign(): Promise<void>;
}

export interface LeaderFollower {
  stop(): void;
}

export interface LeaderElection {
  /** The full store key of the lock (`<prefix>/docker/swarm/leader`). */
  readonly key: string;
  /** Run for leader with `value` (the advertise address) until `resign`. */
  campaign(value: string, handlers: CampaignHandlers): Campaign;
  /**
   * Calls `onLeader` with the current leader's value whenever it changes (`undefined` while
   * nobody holds the lock), and `onError` for failures it keeps retrying through.
   */
  follow(onLeader: (leader: string | undefined) => void, onError: (error: Error) => void): LeaderFollower;
}
