// The Node object a kubelet registers and the status it reports (conditions with heartbeats,
// capacity and allocatable, addresses, nodeInfo, images), as kubelet's nodestatus setters build it.
import { createHash } from 'node:crypto';
import type { Json } from '../model/decode.js';
import { formatQuantity, parseQuantity } from '../model/quantity.js';
import { now } from '../model/time.js';
import type { KObject } from '../store/store.js';

export interface NodeFacts {
  name: string;
  internalIP: string;
  podCIDR?: string;
  capacity: { cpu: string; memory: string; pods?: string; ephemeralStorage?: string };
  /** What kubelet reserves: allocatable = capacity - reserved (memory eviction threshold 100Mi by default). */
  reservedMemory?: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  architecture: string;
  images: Array<{ names: string[]; sizeBytes: number }>;
}

export type ReadyState = { status: 'True' } | { status: 'False'; reason: string; message: string };

export const KUBELET_VERSION = 'v1.32.4';

const machineId = (name: string) => createHash('md5').update(`machine-${name}`).digest('hex');
const uuidFrom = (text: string) => {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

function subtract(quantity: string, reserved: string): string {
  const value = parseQuantity(quantity);
  const rest = value.nanos - parseQuantity(reserved).nanos;
  return formatQuantity({ nanos: rest > 0n ? rest : 0n, format: value.format });
}

/** The labels kubelet puts on its Node. */
export function nodeLabels(name: string, architecture: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': architecture,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': architecture,
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    ...extra,
  };
}

export function nodeStatus(facts: NodeFacts, ready: ReadyState, previous: KObject | undefined, bootID: string): Json {
  const time = now();
  const oldConditions = ((previous?.status as Record<string, unknown> | undefined)?.conditions ?? []) as Array<Record<string, string>>;
  const condition = (type: string, status: string, reason: string, message: string) => {
    const old = oldConditions.find((c) => c.type === type);
    return {
      type,
      status,
      lastHeartbeatTime: time,
      lastTransitionTime: old && old.status === status ? old.lastTransitionTime! : time,
      reason,
      message,
    };
  };
  const capacity: Record<string, string> = {
    cpu: facts.capacity.cpu,
    'ephemeral-storage': facts.capacity.ephemeralStorage ?? '61202244Ki',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: facts.capacity.memory,
    pods: facts.capacity.pods ?? '110',
  };
  const allocatable = {
    ...capacity,
    'ephemeral-storage': subtract(capacity['ephemeral-storage']!, '6120224Ki'),
    memory: subtract(capacity.memory!, facts.reservedMemory ?? '100Mi'),
  };
  return {
    capacity,
    allocatable,
    conditions: [
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      ready.status === 'True'
        ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
        : condition('Ready', 'False', ready.reason, ready.message),
    ],
    addresses: [
      { type: 'InternalIP', address: facts.internalIP },
      { type: 'Hostname', address: facts.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: machineId(facts.name),
      systemUUID: uuidFrom(`system-${facts.name}`),
      bootID,
      kernelVersion: facts.kernelVersion,
      osImage: facts.osImage,
      containerRuntimeVersion: facts.containerRuntimeVersion,
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: facts.architecture,
    },
    images: facts.images,
  };
}

/** Conditions and images compared without heartbeat times: a status only these differ in is not reported early. */
export function statusFingerprint(status: Json | undefined): string {
  return JSON.stringify(status, (key, value) => (key === 'lastHeartbeatTime' ? undefined : value));
}

export const newBootId = (name: string): string => uuidFrom(`boot-${name}-${Date.now()}`);
