import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error driver-mesos raises itself (its agents' engines answer through the SDK's engine client). */
export const MesosErrors = {
  /** Docker's text for a name in use, word for word as Swarm classic returns it. */
  nameInUse: defineError('mesos.name-in-use', {
    code: ErrorCodes.NAME_IN_USE,
    message: (p: { name: string }) =>
      `Conflict: The name ${p.name} is already assigned. You have to delete (or rename) that container to be able to assign ${p.name} to a container again.`,
  }),
  /** Swarm classic's text: a Mesos task needs resources. */
  resourcesRequired: defineError('mesos.resources-required', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'resources constraints (-c and/or -m) are required by mesos',
  }),
  taskTimedOut: defineError('mesos.task-timeout', {
    code: ErrorCodes.TIMEOUT,
    message: (p: { after: string; why: string }) => `container failed to start after ${p.after}${p.why}`,
  }),
  managerStopping: defineError('mesos.stopping', { code: ErrorCodes.ENGINE_ERROR, message: () => 'the manager is stopping' }),
  notRegistered: defineError('mesos.not-registered', {
    code: ErrorCodes.ENGINE_ERROR,
    message: () => 'not registered with a Mesos master',
  }),
  notSubscribed: defineError('mesos.not-subscribed', { code: ErrorCodes.ENGINE_ERROR, message: () => 'not subscribed to a Mesos master' }),
  launchFailed: defineError('mesos.launch-failed', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { task: string; reason: string }) => `cannot launch task ${p.task}: ${p.reason}`,
  }),
  taskOnUnknownAgent: defineError('mesos.unknown-agent', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { task: string; agent: string }) => `task ${p.task} runs on unknown agent ${p.agent}`,
  }),
  taskContainerMissing: defineError('mesos.container-missing', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { task: string; container: string; agent: string; why?: string }) =>
      `task ${p.task} is running but container ${p.container} was not found on ${p.agent}${p.why ? ` (${p.why})` : ''}`,
  }),
  taskWithoutContainer: defineError('mesos.task-no-container', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { task: string }) => `task ${p.task} is running but its status carries no container`,
  }),
  /** A task that ended before running: its state and the master's reason (`task web.1 failed: ...`). */
  taskFailed: defineError('mesos.task-failed', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { description: string }) => p.description,
  }),
  noSuchNode: defineError('mesos.no-such-node', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { node: string }) => `No such node: ${p.node}`,
  }),
  noPortInOffers: defineError('mesos.no-port', { code: ErrorCodes.NO_RESOURCES, message: () => 'no port available in the offers' }),
  masterAddressInvalid: defineError('mesos.master-address', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { discovery: string; why: string }) => `invalid mesos master address ${JSON.stringify(p.discovery)}: ${p.why}`,
  }),
  optionDuration: defineError('mesos.option.duration', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; reason: string }) => `Failed to parse ${p.key} in Duration (${p.reason})`,
  }),
  optionNegative: defineError('mesos.option.negative', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { label: string }) => `${p.label} cannot be a negative number`,
  }),
  optionBool: defineError('mesos.option.bool', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; raw: string }) => `Failed to parse ${p.key} in Bool: ${JSON.stringify(p.raw)}`,
  }),
  optionAddress: defineError('mesos.option.address', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { address: string }) => `invalid IP address for cluster-opt mesos.address: "${p.address}"`,
  }),
  optionPort: defineError('mesos.option.port', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { port: string }) => `invalid port for cluster-opt mesos.port: "${p.port}"`,
  }),
  masterTimedOut: defineError('mesos.master-timeout', {
    code: ErrorCodes.ENGINE_UNREACHABLE,
    message: (p: { master: string; ms: number }) => `Mesos master ${p.master} did not answer within ${p.ms} ms`,
  }),
  masterRedirects: defineError('mesos.master-redirects', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { master: string }) => `Mesos master ${p.master}: too many redirects`,
  }),
  masterNoStreamId: defineError('mesos.master-stream-id', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { master: string }) => `Mesos master ${p.master} sent no Mesos-Stream-Id`,
  }),
  masterInfoInvalid: defineError('mesos.master-info', {
    code: ErrorCodes.DISCOVERY_FAILED,
    message: (p: { reason: string }) => `MasterInfo ${p.reason}`,
  }),
  zkNotConnected: defineError('mesos.zk-not-connected', { code: ErrorCodes.DISCOVERY_FAILED, message: () => 'ZooKeeper is not connected' }),
} as const;
