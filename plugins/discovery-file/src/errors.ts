import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the file discovery raises. */
export const FileDiscoveryErrors = {
  pathMissing: defineError('file.path-missing', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: () => 'file discovery needs a path: file:///path/to/cluster-file',
  }),
  heartbeatInvalid: defineError('file.heartbeat', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { heartbeat: number }) => `file discovery needs a positive heartbeat, got ${p.heartbeat}`,
  }),
  lineInvalid: defineError('file.line', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { path: string; line: number; reason: string }) => `${p.path} line ${p.line}: ${p.reason}`,
  }),
  unreadable: defineError('file.unreadable', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { path: string; reason: string }) => `cannot read discovery file ${p.path}: ${p.reason}`,
  }),
  readOnly: defineError('file.read-only', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: (p: { path: string; addr: string }) => `the file discovery is read-only: add ${p.addr} to ${p.path} instead`,
  }),
} as const;
