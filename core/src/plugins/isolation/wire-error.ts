import { isSwarmError, SwarmError, type ErrorCode } from '@swarm/plugin-sdk';
import type { WireError } from './protocol.js';

/** A plugin's error as data, to cross from its worker to the host. */
export function wireError(error: unknown): WireError {
  if (isSwarmError(error)) {
    return {
      message: error.message,
      stack: error.stack,
      swarm: { code: error.code, httpStatus: error.httpStatus, details: error.details },
    };
  }
  return error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
}

/** The plugin's own error as it was thrown in the worker (the guard then names the plugin in it). */
export function rebuild(error: WireError): Error {
  if (error.swarm) {
    // eslint-disable-next-line no-restricted-syntax -- the plugin's own coded error, carried over from its thread
    return new SwarmError(error.swarm.code as ErrorCode, error.message, {
      httpStatus: error.swarm.httpStatus,
      details: error.swarm.details,
    });
  }
  // eslint-disable-next-line no-restricted-syntax -- the plugin's own error, carried over from its thread
  const rebuilt = new Error(error.message);
  if (error.stack) rebuilt.stack = error.stack;
  return rebuilt;
}
