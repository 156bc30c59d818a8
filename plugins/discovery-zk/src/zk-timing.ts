/**
 * How a replication TTL maps onto a ZooKeeper session. A dead leader's candidate node goes when
 * the server expires its session, and ZooKeeper expires sessions in buckets of its tickTime: up
 * to one tick after the session timeout. Failover = session timeout + up to one tick + the watch
 * notification and the successor's check, so the session timeout is the TTL less one tick and a
 * takeover reserve.
 */

/** ZooKeeper's shipped tickTime (the client cannot ask the server for its own). */
export const ZK_ASSUMED_TICK_MS = 2000;

/** The smallest session timeout we ask for: the client pings every third of it. */
const MIN_SESSION_TIMEOUT_MS = 2000;

/** Time kept for the notification, the successor's reads and its election. */
export function takeoverReserveMs(ttlSeconds: number): number {
  return Math.max(750, ttlSeconds * 100);
}

/** The session timeout to ask for so that a failover fits inside `ttlSeconds`. */
export function electionSessionTimeoutMs(ttlSeconds: number): number {
  const ttlMs = ttlSeconds * 1000;
  return Math.max(MIN_SESSION_TIMEOUT_MS, Math.round(ttlMs - ZK_ASSUMED_TICK_MS - takeoverReserveMs(ttlSeconds)));
}

/** The longest a failover can take with the session timeout the server granted. */
export function worstFailoverMs(grantedMs: number, ttlSeconds: number): number {
  return grantedMs + ZK_ASSUMED_TICK_MS + takeoverReserveMs(ttlSeconds);
}

/** A warning when the granted session cannot honour the TTL, else undefined. */
export function ttlWarning(requestedMs: number, grantedMs: number, ttlSeconds: number): string | undefined {
  const worst = worstFailoverMs(grantedMs, ttlSeconds);
  if (worst <= ttlSeconds * 1000) return undefined;
  return (
    `zk: ZooKeeper granted a ${grantedMs} ms session (asked for ${requestedMs} ms) for a replication TTL of ${ttlSeconds}s; ` +
    `sessions expire on the server's tick (${ZK_ASSUMED_TICK_MS} ms by default), so a failover can take up to ${worst} ms. ` +
    'Raise --replication-ttl or lower minSessionTimeout/tickTime on the ZooKeeper servers'
  );
}
