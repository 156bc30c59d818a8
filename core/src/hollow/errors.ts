import { ErrorCodes, SwarmError } from '@swarm/plugin-sdk';

// The hollow engine answers as dockerd does: a status and `{"message": ...}` (carried as coded errors).
export const notFound = (message: string): SwarmError => new SwarmError(ErrorCodes.NOT_FOUND, message);
export const conflict = (message: string): SwarmError => new SwarmError(ErrorCodes.CONFLICT, message);
export const invalidArgument = (message: string): SwarmError => new SwarmError(ErrorCodes.INVALID_ARGUMENT, message);
