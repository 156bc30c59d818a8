import { ErrorCodes, defineError, type SwarmError } from '@swarm/plugin-sdk';

/**
 * What a hollow engine refuses, in dockerd's own words and statuses (`{"message": ...}` with 404,
 * 409, 400), so that a manager in front of it sees a real engine's refusals. These are the
 * imitated engine's answers, not the host's: they stay next to the engine rather than in
 * core's catalogue (src/errors.ts).
 */
export const HollowErrors = {
  notFound: defineError('hollow.not-found', { code: ErrorCodes.NOT_FOUND, message: (p: { message: string }) => p.message }),
  conflict: defineError('hollow.conflict', { code: ErrorCodes.CONFLICT, message: (p: { message: string }) => p.message }),
  invalidArgument: defineError('hollow.invalid-argument', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { message: string }) => p.message,
  }),
  /** dockerd answers a host port another container holds with a 500. */
  portAllocated: defineError('hollow.port-allocated', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { endpoint: string; hostIp: string; hostPort: number }) =>
      `driver failed programming external connectivity on endpoint ${p.endpoint}: Bind for ${p.hostIp}:${p.hostPort} failed: port is already allocated`,
  }),
};

export const notFound = (message: string): SwarmError => HollowErrors.notFound({ message });
export const conflict = (message: string): SwarmError => HollowErrors.conflict({ message });
export const invalidArgument = (message: string): SwarmError => HollowErrors.invalidArgument({ message });
