import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error driver-swarm raises itself (engine answers come through the engine client's). */
export const SwarmErrors = {
  /** Docker's text for a name in use, word for word as Swarm classic returns it. */
  nameInUse: defineError('swarm.name-in-use', {
    code: ErrorCodes.NAME_IN_USE,
    message: (p: { name: string }) =>
      `Conflict: The name ${p.name} is already assigned. You have to delete (or rename) that container to be able to assign ${p.name} to a container again.`,
  }),
  noNodeChosen: defineError('swarm.no-node-chosen', { code: ErrorCodes.NO_NODE_AVAILABLE, message: () => 'error creating container' }),
  noHealthyNode: defineError('swarm.no-healthy-node', {
    code: ErrorCodes.NO_NODE_AVAILABLE,
    message: () => 'No healthy node available in the cluster',
  }),
  createdButNotListed: defineError('swarm.created-not-listed', {
    code: ErrorCodes.ENGINE_ERROR,
    message: () => "Container created but refresh didn't report it back",
  }),
  networkCreatedNotListed: defineError('swarm.network-created-not-listed', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { name: string; node: string }) => `network ${p.name} was created on ${p.node} but is not listed there`,
  }),
  openFilesShort: defineError('swarm.open-files-short', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { limit: number; engines: number; needed: number }) =>
      `the open files limit (${p.limit}) is too low for ${p.engines} engines: each holds an event stream, and the API needs files for its clients; raise it to at least ${p.needed} (ulimit -n ${p.needed}, or LimitNOFILE= in a systemd unit) before starting swarm manage`,
  }),
  nodeGone: defineError('swarm.node-gone', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { node: string }) => `node ${p.node} is no longer part of the cluster`,
  }),
  noSuchNode: defineError('swarm.no-such-node', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { node: string }) => `No such node: ${p.node}`,
  }),
  noSuchImage: defineError('swarm.no-such-image', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { image: string }) => `No such image: ${p.image}`,
  }),
  noSuchVolume: defineError('swarm.no-such-volume', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { volume: string }) => `No such volume: ${p.volume}`,
  }),
  /** Engines that failed a fanned-out operation, one `node: error` line each (Swarm classic joins them so). */
  fanOutFailed: defineError('swarm.fan-out', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { failures: readonly string[] }) => p.failures.join('\n'),
  }),
  /** An error an engine reported inside a progress stream (pull, load, import). */
  progressFailed: defineError('swarm.progress-failed', { code: ErrorCodes.ENGINE_ERROR, message: (p: { message: string }) => p.message }),
  notAnEngine: defineError('swarm.not-an-engine', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { addr: string }) => `${p.addr} is not a Docker engine: /info and /version did not answer as an engine does`,
  }),
  /** A discovered address that answers as a swarm manager (this one reached through loopback, or another). */
  nodeIsManager: defineError('swarm.node-is-manager', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { addr: string; serverVersion: string }) =>
      `${p.addr} is a swarm manager, not a Docker engine (its /info says ServerVersion ${p.serverVersion}): refused as a node, nothing is sent to it. ` +
      `A manager in a container that is given 127.0.0.x or localhost reaches its own listener there: list the engines by addresses the container can reach (the host's, or --network host)`,
  }),
  notAnEngineStatus: defineError('swarm.not-an-engine-status', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { addr: string; status: number; reason: string }) =>
      `${p.addr} is not a Docker engine: GET /info answered HTTP ${p.status} (${p.reason})`,
  }),
  duplicateEngineId: defineError('swarm.duplicate-engine-id', {
    code: ErrorCodes.CONFLICT,
    message: (p: { engineId: string; addr: string; other: string }) =>
      `ID duplicated. ${p.engineId} shared by this node ${p.addr} and another node ${p.other}`,
  }),
  optionNotNumber: defineError('swarm.option.not-number', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; raw: string }) => `${p.key} must be a number, "${p.raw}" is invalid`,
  }),
  overcommitInvalid: defineError('swarm.option.overcommit', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: number }) => `swarm.overcommit should be larger than -1, ${p.value.toFixed(6)} is invalid`,
  }),
  createRetryNotInteger: defineError('swarm.option.createretry-integer', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: number }) => `swarm.createretry must be an integer, ${p.value} is invalid`,
  }),
  createRetryNegative: defineError('swarm.option.createretry-negative', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: number }) => `swarm.createretry can not be negative, ${p.value} is invalid`,
  }),
  positiveSecondsInvalid: defineError('swarm.option.positive-seconds', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; value: number }) => `${p.key} must be a positive number of seconds, ${p.value} is invalid`,
  }),
  durationOptionInvalid: defineError('swarm.option.duration', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; raw: string; reason: string }) =>
      `${p.key} must be a duration such as 30s or 2m (0 reschedules at once), "${p.raw}" is invalid: ${p.reason}`,
  }),
  requestTimeoutInvalid: defineError('swarm.option.requesttimeout', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: number }) => `swarm.requesttimeout must be positive, ${p.value} is invalid`,
  }),
  refreshMinInvalid: defineError('swarm.option.refresh-min', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: number }) => `min refresh interval should be a positive number, ${p.value} is invalid`,
  }),
  refreshMaxBelowMin: defineError('swarm.option.refresh-max', {
    code: ErrorCodes.CONFIG_INVALID,
    message: () => 'max refresh interval cannot be less than min refresh interval',
  }),
  failureRetryInvalid: defineError('swarm.option.failure-retry', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: number }) => `invalid failure retry count, ${p.value} is invalid`,
  }),
} as const;
