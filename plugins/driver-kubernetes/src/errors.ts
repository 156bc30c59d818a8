import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error driver-kubernetes raises. Docker-facing texts that scripts match are Docker's own, word for word. */
export const KubernetesErrors = {
  nameInUse: defineError('kubernetes.name-in-use', {
    code: ErrorCodes.NAME_IN_USE,
    message: (p: { name: string }) =>
      `Conflict: The name ${p.name} is already assigned. You have to delete (or rename) that container to be able to assign ${p.name} to a container again.`,
  }),
  noSuchContainer: defineError('kubernetes.no-such-container', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { name: string }) => `No such container: ${p.name}`,
  }),
  removeRunning: defineError('kubernetes.remove-running', {
    code: ErrorCodes.CONFLICT,
    message: (p: { id: string }) =>
      `You cannot remove a running container ${p.id}. Stop the container before attempting removal or force remove`,
  }),
  /** A docker option with no Kubernetes meaning: refused, never dropped. */
  optionUnsupported: defineError('kubernetes.option-unsupported', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { option: string; why: string }) => `${p.option} is not supported with the kubernetes driver: ${p.why}`,
  }),
  optionInvalid: defineError('kubernetes.option-invalid', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { option: string; value: string; why: string }) => `invalid ${p.option} "${p.value}": ${p.why}`,
  }),
  clusterOption: defineError('kubernetes.cluster-option', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; value: string; why: string }) => `--cluster-opt ${p.key}=${p.value}: ${p.why}`,
  }),
  kubeconfig: defineError('kubernetes.kubeconfig', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { source: string; why: string }) => `cannot use the kubeconfig ${p.source}: ${p.why}`,
  }),
  noCredentials: defineError('kubernetes.no-credentials', {
    code: ErrorCodes.CONFIG_INVALID,
    message: () =>
      'no Kubernetes credentials: run inside a pod with a service account, set $KUBECONFIG, or give --cluster-opt kubernetes.kubeconfig=PATH',
  }),
  /** The API server's own refusal (a `Status`), with its HTTP status kept. */
  apiRefused: defineError('kubernetes.api-refused', {
    code: (p: { status: number; message: string; what: string }) =>
      p.status === 404 ? ErrorCodes.NOT_FOUND : p.status === 409 ? ErrorCodes.CONFLICT : ErrorCodes.ENGINE_ERROR,
    message: (p: { status: number; message: string; what: string }) => `${p.what}: ${p.message}`,
  }),
  apiUnreachable: defineError('kubernetes.api-unreachable', {
    code: ErrorCodes.ENGINE_UNREACHABLE,
    message: (p: { server: string; why: string }) => `cannot reach the Kubernetes API server ${p.server}: ${p.why}`,
  }),
  timeout: defineError('kubernetes.timeout', {
    code: ErrorCodes.TIMEOUT,
    message: (p: { what: string; after: string }) => `${p.what} did not happen within ${p.after}`,
  }),
  noNodeChosen: defineError('kubernetes.no-node', {
    code: ErrorCodes.NO_NODE_AVAILABLE,
    message: () => 'No healthy node available in the cluster',
  }),
  notRunning: defineError('kubernetes.not-running', {
    code: ErrorCodes.CONFLICT,
    message: (p: { id: string }) => `Container ${p.id} is not running`,
  }),
  noSuchExec: defineError('kubernetes.no-such-exec', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { id: string }) => `No such exec instance: ${p.id}`,
  }),
  notServed: defineError('kubernetes.not-served', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: (p: { what: string; why: string }) => `${p.what} is not supported with the kubernetes driver: ${p.why}`,
  }),
  /** The engine emulator's own refusals, in Docker's words. */
  emulatorNotFound: defineError('kubernetes.emulator-not-found', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { what: string }) => p.what,
  }),
  invalidBody: defineError('kubernetes.invalid-body', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { why: string }) => p.why,
  }),
  bodyTooLarge: defineError('kubernetes.body-too-large', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'request body too large',
    httpStatus: 413,
  }),
  /** A watch the API server ended with an ERROR event (a `Status`), its code kept. */
  watchFailed: defineError('kubernetes.watch-failed', {
    code: ErrorCodes.ENGINE_ERROR,
    message: (p: { message: string }) => p.message,
  }),
  discoveryWithoutDriver: defineError('kubernetes.discovery-without-driver', {
    code: ErrorCodes.DISCOVERY_INVALID,
    message: (p: { driver: string }) =>
      `k8s:// finds nodes for the kubernetes driver only (this deployment uses "${p.driver}"): add -c kubernetes`,
  }),
  leaseLost: defineError('kubernetes.lease-lost', {
    code: ErrorCodes.CONFLICT,
    message: (p: { lease: string; why: string }) => `lease ${p.lease} lost: ${p.why}`,
  }),
  badSignal: defineError('kubernetes.bad-signal', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: (p: { signal: string }) => `Invalid signal: ${p.signal}`,
  }),
};
