/** Where Swarm classic keeps the replication lock, relative to the discovery prefix. */
export const LEADER_ELECTION_PATH = 'docker/swarm/leader';

/** Wraps `onLeader` so it hears the first value and then only changes. */
export function distinctLeaderUpdates(onLeader: (leader: string | undefined) => void): (leader: string | undefined) => void {
  let reported = false;
  let last: string | undefined;
  return (leader) => {
    if (reported && leader === last) return;
    reported = true;
    last = leader;
    onLeader(leader);
  };
}
