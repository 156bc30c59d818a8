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
  /** A plugin threw or rejected while working (a filter at a placement): its fault, named in the message. */
  PLUGIN_FAILED: 'SWARM_ERR_PLUGIN_FAILED',
  /** A plugin's call did not settle within its time limit (the entry's `timeout`): named with the limit in the message. */
  PLUGIN_TIMEOUT: 'SWARM_ERR_PLUGIN_TIMEOUT',
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
  /** A container name already in use (Docker's `Conflict: The name ... is already assigned`). */
  NAME_IN_USE: 'SWARM_ERR_NAME_IN_USE',
  NODE_UNHEALTHY: 'SWARM_ERR_NODE_UNHEALTHY',
  ENGINE_ERROR: 'SWARM_ERR_ENGINE',
  /** The engine could not be reached at all (refused, reset, no answer in time). */
  ENGINE_UNREACHABLE: 'SWARM_ERR_ENGINE_UNREACHABLE',
  /** The caller gave up on an engine call (a client that left a pull). */
  CANCELLED: 'SWARM_ERR_CANCELLED',
  NOT_SUPPORTED: 'SWARM_ERR_NOT_SUPPORTED',
  DISCOVERY_INVALID: 'SWARM_ERR_DISCOVERY_INVALID',
  DISCOVERY_FAILED: 'SWARM_ERR_DISCOVERY_FAILED',
  TIMEOUT: 'SWARM_ERR_TIMEOUT',
  // access control (plugin API 2.1)
  /** The caller presented a credential that is wrong (401). */
  UNAUTHENTICATED: 'SWARM_ERR_UNAUTHENTICATED',
  /** An authorizer or admission controller refused the request (403). */
  PERMISSION_DENIED: 'SWARM_ERR_PERMISSION_DENIED',
  /** A fault in swarm itself (a bug): logged with its cause, answered with 500. */
  INTERNAL: 'SWARM_ERR_INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const DEFAULT_STATUS: Partial<Record<ErrorCode, number>> = {
  [ErrorCodes.NOT_FOUND]: 404,
  [ErrorCodes.CONFLICT]: 409,
  [ErrorCodes.NAME_IN_USE]: 409,
  [ErrorCodes.INVALID_ARGUMENT]: 400,
  [ErrorCodes.INVALID_EXPRESSION]: 400,
  [ErrorCodes.NOT_SUPPORTED]: 501,
  [ErrorCodes.FEATURE_UNAVAILABLE]: 501,
  [ErrorCodes.UNAUTHENTICATED]: 401,
  [ErrorCodes.PERMISSION_DENIED]: 403,
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

/** What a catalogue entry adds to one error it builds. */
export interface RaiseOptions {
  cause?: unknown;
  details?: Readonly<Record<string, unknown>>;
  /** Overrides the entry's status (an engine's own status, passed through). */
  httpStatus?: number;
}

/** One entry of an error catalogue: call it with the template's parameters to get the error. */
export interface ErrorFactory<P> {
  (params: P, options?: RaiseOptions): SwarmError;
  /** The entry's code; undefined for an entry whose code depends on its parameters. */
  readonly code: ErrorCode | undefined;
  /** The entry's status (500 for an entry whose code depends on its parameters, unless it gives one). */
  readonly httpStatus: number;
  /** Whether `error` was built by this entry (any SDK copy: by its entry key, not by message). */
  is(error: unknown): error is SwarmError;
}

export interface ErrorSpec<P> {
  /**
   * The error's code; a function for an entry that rewords another component's error and keeps
   * its code (a placement a filter refused keeps that filter's code).
   */
  readonly code: ErrorCode | ((params: P) => ErrorCode);
  /** Default: the code's usual status (404 for NOT_FOUND, 409 for CONFLICT, ..., else 500). */
  readonly httpStatus?: number;
  /** The message, from the parameters the caller gives (texts clients match stay word for word). */
  readonly message: (params: P) => string;
}

const ENTRY = 'catalogueEntry';

/**
 * An entry of a package's error catalogue (fastify's `lib/errors.js`, rollup's `logs.ts`): every
 * error a user can see is built by one of these, so its code, status and text live in one place.
 * `key` names the entry; `is(error)` recognises its errors without reading their message.
 */
export function defineError<P = void>(key: string, spec: ErrorSpec<P>): ErrorFactory<P> {
  const fixedCode = typeof spec.code === 'function' ? undefined : spec.code;
  const codeOf = typeof spec.code === 'function' ? spec.code : () => spec.code as ErrorCode;
  const statusOf = (code: ErrorCode | undefined) => spec.httpStatus ?? (code === undefined ? undefined : DEFAULT_STATUS[code]) ?? 500;
  const raise = (params: P, options: RaiseOptions = {}): SwarmError => {
    const code = codeOf(params);
    return new SwarmError(code, spec.message(params), {
      cause: options.cause,
      httpStatus: options.httpStatus ?? statusOf(code),
      details: { ...options.details, [ENTRY]: key },
    });
  };
  return Object.assign(raise, {
    code: fixedCode,
    httpStatus: statusOf(fixedCode),
    is: (error: unknown): error is SwarmError => isSwarmError(error) && error.details?.[ENTRY] === key,
  });
}

// --- the SDK's own catalogue (its helpers raise these) ---------------------------------------------

/** What was thrown, as an Error (a string or object thrown by a library keeps its text). */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

export const SdkErrors = {
  expressionOperatorMissing: defineError('sdk.expression.operator', {
    code: ErrorCodes.INVALID_EXPRESSION,
    message: () => 'One of operator ==, != is expected',
  }),
  expressionKeyInvalid: defineError('sdk.expression.key', {
    code: ErrorCodes.INVALID_EXPRESSION,
    message: (p: { key: string }) => `Key '${p.key}' is invalid`,
  }),
  expressionValueInvalid: defineError('sdk.expression.value', {
    code: ErrorCodes.INVALID_EXPRESSION,
    message: (p: { value: string }) => `Value '${p.value}' is invalid`,
  }),
  expressionFilterNeedsTable: defineError('sdk.expression-filter.table', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { filter: string }) => `expression filter "${p.filter}" reads a NodeTable: pass one to prepare`,
  }),
  expressionFilterSpec: defineError('sdk.expression-filter.spec', {
    code: ErrorCodes.PLUGIN_REGISTER_FAILED,
    message: (p: { filter: string }) => `expression filter "${p.filter}": give exactly one of matches and matcher`,
  }),
  /** Swarm classic's text when no node can hold the requested CPUs and memory. */
  noResources: defineError('sdk.no-resources', {
    code: ErrorCodes.NO_RESOURCES,
    message: () => 'no resources available to schedule container',
  }),
  /** The test kit's resolver has no service under a token the plugin asked for: give it to `pluginProviders`. */
  testServiceMissing: defineError('sdk.testing.service-missing', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { token: string }) => `test resolver: nothing registered under "${p.token}"`,
  }),
  testDuplicateProvider: defineError('sdk.testing.duplicate-provider', {
    code: ErrorCodes.PLUGIN_DUPLICATE_PROVIDER,
    message: (p: { plugin: string; name: string }) => `${p.plugin} registers "${p.name}" twice`,
  }),
  testProviderMissing: defineError('sdk.testing.provider-missing', {
    code: ErrorCodes.UNKNOWN_PROVIDER,
    message: (p: { plugin: string; name: string; kind: string }) => `${p.plugin} registers no "${p.name}" under ${p.kind}`,
  }),
  /** A test kit check that failed, named, with what was wrong. */
  conformanceFailed: defineError('sdk.testing.check-failed', {
    code: ErrorCodes.PLUGIN_FAILED,
    message: (p: { check: string; reason: string }) => `${p.check}: ${p.reason}`,
  }),
  /** The test kit's scheduler found no node: its summary says why per node. */
  testSchedulerNoNode: defineError('sdk.testing.no-node', {
    code: ErrorCodes.FILTER_UNSATISFIED,
    message: (p: { summary: string }) => `Unable to find a node for the container: ${p.summary}`,
  }),
  strategyOptionUnknown: defineError('sdk.strategy.option-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { strategy: string; key: string; known: readonly string[] }) =>
      `strategy "${p.strategy}": unknown option "${p.key}"; known options: ${p.known.join(', ')}`,
  }),
  strategyWeightsZero: defineError('sdk.strategy.weights-zero', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { strategy: string }) => `strategy "${p.strategy}": cpuWeight and memoryWeight cannot both be 0`,
  }),
  strategyWeightInvalid: defineError('sdk.strategy.weight-invalid', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { strategy: string; key: string; value: unknown }) =>
      `strategy "${p.strategy}": option ${p.key} must be a number >= 0, got ${JSON.stringify(p.value)}`,
  }),
  reschedulePolicyTooMany: defineError('sdk.reschedule.too-many', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'too many reschedule policies',
  }),
  reschedulePolicyInvalid: defineError('sdk.reschedule.invalid', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { policy: string }) => `invalid reschedule policy: ${p.policy}`,
  }),
  discoveryEntryInvalid: defineError('sdk.discovery.entry', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { entry: string }) => `invalid discovery entry "${p.entry}": expected host:port (for example 127.0.0.2:2375)`,
  }),
  discoveryRangeReversed: defineError('sdk.discovery.range-reversed', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { pattern: string; from: number; to: number }) =>
      `invalid discovery range "${p.pattern}": ${p.from} is greater than ${p.to}`,
  }),
  discoveryRangeTooLarge: defineError('sdk.discovery.range-too-large', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { pattern: string; max: number }) => `invalid discovery range "${p.pattern}": more than ${p.max} addresses`,
  }),
  discoveryListEmpty: defineError('sdk.discovery.list-empty', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: () => 'empty discovery list: expected host:port[,host:port...]',
  }),
  discoveryListItemEmpty: defineError('sdk.discovery.list-item-empty', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { list: string }) => `invalid discovery list "${p.list}": empty item`,
  }),
  kvStoreMissing: defineError('sdk.kv.store-missing', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { scheme: string }) =>
      `${p.scheme}:// discovery needs at least one store address, as in ${p.scheme}://h1:port,h2:port/prefix`,
  }),
  kvStoreAddressInvalid: defineError('sdk.kv.store-address', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { scheme: string; host: string }) => `invalid ${p.scheme} store address ${JSON.stringify(p.host)}: expected host:port`,
  }),
  kvTlsIncomplete: defineError('sdk.kv.tls-incomplete', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: () => 'TLS to the discovery store needs kv.cacertfile, kv.certfile and kv.keyfile together',
  }),
  kvTlsUnreadable: defineError('sdk.kv.tls-unreadable', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { option: string; file: string; reason: string }) => `cannot read ${p.option} ${p.file}: ${p.reason}`,
  }),
  durationInvalid: defineError('sdk.duration.invalid', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { text: string }) => `time: invalid duration "${p.text}"`,
  }),
  durationMissingUnit: defineError('sdk.duration.missing-unit', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { text: string }) => `time: missing unit in duration "${p.text}"`,
  }),
  /** The engine was not reached (refused, reset, no answer in time): what engine health counts. */
  engineUnreachable: defineError('sdk.engine.unreachable', {
    code: ErrorCodes.ENGINE_UNREACHABLE,
    message: (p: { engine: string; reason: string }) => `Cannot connect to the Docker engine endpoint ${p.engine}: ${p.reason}`,
  }),
  /** The caller gave up on the call (a client that left a pull): neither the engine's fault nor a connection failure. */
  engineCallCancelled: defineError('sdk.engine.cancelled', {
    code: ErrorCodes.CANCELLED,
    message: (p: { engine: string }) => `request to ${p.engine} cancelled`,
  }),
  /** An engine's 404 answer (its message and status kept). */
  engineNotFound: defineError('sdk.engine.not-found', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { message: string }) => p.message,
  }),
  /** An engine's 409 answer (its message and status kept). */
  engineConflict: defineError('sdk.engine.conflict', {
    code: ErrorCodes.CONFLICT,
    message: (p: { message: string }) => p.message,
  }),
  /** Any other engine error answer: its own message (as Docker clients print it) and its own status. */
  engineRefused: defineError('sdk.engine.refused', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { message: string }) => p.message,
  }),
  engineAnswerNotJson: defineError('sdk.engine.not-json', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { engine: string; path: string }) => `${p.engine} answered ${p.path} with something that is not JSON`,
  }),
  engineTlsUnreadable: defineError('sdk.engine.tls-unreadable', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { flag: string; path: string; reason: string }) => `cannot read ${p.flag} ${p.path}: ${p.reason}`,
  }),
} as const;
