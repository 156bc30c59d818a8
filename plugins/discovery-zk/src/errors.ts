import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the ZooKeeper discovery raises; each names the store (`zk: ...`). */
export const ZkErrors = {
  /** The store failed or leadership was lost: why, worded for the log and `docker info`. */
  storeFailure: defineError('zk.failure', { code: ErrorCodes.DISCOVERY_FAILED, message: (p: { reason: string }) => `zk: ${p.reason}` }),
  tlsFailed: defineError('zk.tls', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { host: string; reason: string }) =>
      `zk: TLS to ZooKeeper at ${p.host} failed: ${p.reason} (check kv.cacertfile, kv.certfile and kv.keyfile)`,
  }),
  tlsUnreachable: defineError('zk.tls-unreachable', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { host: string; reason: string }) => `zk: cannot reach ZooKeeper at ${p.host} (TLS): ${p.reason}`,
  }),
  readFailed: defineError('zk.read', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { path: string; reason: string }) => `zk: cannot read ${p.path}: ${p.reason}`,
  }),
  entryIgnored: defineError('zk.entry-ignored', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { path: string; reason: string }) => `zk: ignoring an entry under ${p.path}: ${p.reason}`,
  }),
} as const;
