/**
 * Every error swarm raises on purpose carries a stable `code`, so callers (and the API layer)
 * can react to the kind of failure without parsing messages. `httpStatus` is the status the
 * Docker API front answers with when the error reaches a client.
 */
export const ErrorCodes = {
  // plugin host
  PLUGIN_NOT_FOUND: 'SWARM_ERR_PLUGIN_NOT_FOUND',
  PLUGIN_INCOMPATIBLE: 'SWARM_ERR_PLUGIN_INCOMPATIBLE',
  PLUGIN_INVALID_MANIFEST: 'SWARM_ERR_PLUGIN_INVALID_MANIFEST',
  PLUGIN_DUPLICATE_PROVIDER: 'SWARM_ERR_PLUGIN_DUPLICATE_PROVIDER',
  PLUGIN_REGISTER_FAILED: 'SWARM_ERR_PLUGIN_REGISTER_FAILED',
  PLUGIN_LOAD_FAILED: 'SWARM_ERR_PLUGIN_LOAD_FAILED',
  CONFIG_INVALID: 'SWARM_ERR_CONFIG_INVALID',
  CONFIG_NOT_FOUND: 'SWARM_ERR_CONFIG_NOT_FOUND',
  UNKNOWN_PROVIDER: 'SWARM_ERR_UNKNOWN_PROVIDER',
  FEATURE_UNAVAILABLE: 'SWARM_ERR_FEATURE_UNAVAILABLE',
  INVALID_ARGUMENT: 'SWARM_ERR_INVALID_ARGUMENT',
  // scheduling
  NO_NODE_AVAILABLE: 'SWARM_ERR_NO_NODE_AVAILABLE',
  NO_RESOURCES: 'SWARM_ERR_NO_RESOURCES',
  FILTER_UNSATISFIED: 'SWARM_ERR_FILTER_UNSATISFIED',
  INVALID_EXPRESSION: 'SWARM_ERR_INVALID_EXPRESSION',
  // cluster operations
  NOT_FOUND: 'SWARM_ERR_NOT_FOUND',
  CONFLICT: 'SWARM_ERR_CONFLICT',
  NODE_UNHEALTHY: 'SWARM_ERR_NODE_UNHEALTHY',
  ENGINE_ERROR: 'SWARM_ERR_ENGINE',
  NOT_SUPPORTED: 'SWARM_ERR_NOT_SUPPORTED',
  DISCOVERY_INVALID: 'SWARM_ERR_DISCOVERY_INVALID',
  DISCOVERY_FAILED: 'SWARM_ERR_DISCOVERY_FAILED',
  TIMEOUT: 'SWARM_ERR_TIMEOUT',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const DEFAULT_STATUS: Partial<Record<ErrorCode, number>> = {
  [ErrorCodes.NOT_FOUND]: 404,
  [ErrorCodes.CONFLICT]: 409,
  [ErrorCodes.INVALID_ARGUMENT]: 400,
  [ErrorCodes.INVALID_EXPRESSION]: 400,
  [ErrorCodes.NOT_SUPPORTED]: 501,
  [ErrorCodes.FEATURE_UNAVAILABLE]: 501,
};

export interface SwarmErrorOptions {
  cause?: unknown;
  httpStatus?: number;
  /** Structured data for programmatic callers (e.g. the per-node verdicts of a failed placement). */
  details?: Readonly<Record<string, unknown>>;
}

export class SwarmError extends Error {
  readonly code: ErrorCode;
  readonly httpStatus: number;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: SwarmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwarmError';
    this.code = code;
    this.httpStatus = options.httpStatus ?? DEFAULT_STATUS[code] ?? 500;
    this.details = options.details;
  }
}

/** True for a SwarmError from any copy of the SDK (checked by shape, not by `instanceof`). */
export function isSwarmError(value: unknown, code?: ErrorCode): value is SwarmError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { code?: unknown; httpStatus?: unknown };
  if (typeof candidate.code !== 'string' || !candidate.code.startsWith('SWARM_ERR_')) return false;
  if (typeof candidate.httpStatus !== 'number') return false;
  return code === undefined || candidate.code === code;
}

export const notFound = (message: string): SwarmError => new SwarmError(ErrorCodes.NOT_FOUND, message);
export const conflict = (message: string): SwarmError => new SwarmError(ErrorCodes.CONFLICT, message);
export const invalidArgument = (message: string): SwarmError => new SwarmError(ErrorCodes.INVALID_ARGUMENT, message);
export const notSupported = (message: string): SwarmError => new SwarmError(ErrorCodes.NOT_SUPPORTED, message);
