/**
 * How a replication TTL maps onto an etcd lease. A dead leader's lock key goes when etcd revokes
 * its expired lease, and etcd looks for expired leases every 500 ms. Failover = lease TTL + up
 * to one check + the delete notification and the successor's transaction, so the lease is the
 * TTL less one check and a takeover reserve, in whole seconds as etcd grants them.
 */

/** How often etcd's lessor revokes expired leases. */
const EXPIRY_CHECK_MS = 500;

/** etcd's smallest lease on a default single-member cluster (1.5 × election timeout, rounded up). */
const MIN_LEASE_SECONDS = 2;

export function takeoverReserveMs(ttlSeconds: number): number {
  return Math.max(1000, ttlSeconds * 100);
}

/** The lease TTL to ask for so that a failover fits inside `ttlSeconds`. */
export function electionLeaseSeconds(ttlSeconds: number): number {
  const budgetMs = ttlSeconds * 1000 - EXPIRY_CHECK_MS - takeoverReserveMs(ttlSeconds);
  return Math.max(MIN_LEASE_SECONDS, Math.floor(budgetMs / 1000));
}

/** A warning when a lease of `grantedSeconds` cannot honour the TTL, else undefined. */
export function ttlWarning(grantedSeconds: number, ttlSeconds: number): string | undefined {
  const worst = grantedSeconds * 1000 + EXPIRY_CHECK_MS + takeoverReserveMs(ttlSeconds);
  if (worst <= ttlSeconds * 1000) return undefined;
  return `etcd: the election lease lasts ${grantedSeconds}s for a replication TTL of ${ttlSeconds}s, so a failover can take up to ${worst} ms; raise --replication-ttl`;
}
