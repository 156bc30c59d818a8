import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the etcd discovery raises; each names the store (`etcd: ...`). */
export const EtcdErrors = {
  /** Leadership lost or the store failed: why, worded for the log. */
  storeFailure: defineError('etcd.failure', { code: ErrorCodes.DISCOVERY_FAILED, message: (p: { reason: string }) => `etcd: ${p.reason}` }),
  timedOut: defineError('etcd.timeout', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { what: string; ms: number }) => `etcd: ${p.what} timed out after ${p.ms} ms`,
  }),
  readFailed: defineError('etcd.read', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { what: string; reason: string }) => `etcd: cannot read ${p.what}: ${p.reason}`,
  }),
  watchLost: defineError('etcd.watch-lost', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { what: string; reason: string }) => `etcd: lost the watch on ${p.what}, reconnecting: ${p.reason}`,
  }),
  watchFailed: defineError('etcd.watch-failed', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { what: string; reason: string }) => `etcd: the watch on ${p.what} failed, restarting it: ${p.reason}`,
  }),
  entryIgnored: defineError('etcd.entry-ignored', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { path: string; reason: string }) => `etcd: ignoring an entry under ${p.path}: ${p.reason}`,
  }),
} as const;
