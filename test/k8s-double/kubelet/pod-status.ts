// A pod's status from its containers' states, as the kubelet computes it (generateAPIPodStatus,
// getPhase): phase, the Initialized / ContainersReady / Ready / PodReadyToStartContainers
// conditions (PodScheduled kept from the scheduler), container statuses, IPs and start time.
import type { Json } from '../model/decode.js';
import { now } from '../model/time.js';
import type { KObject } from '../store/store.js';
import type { Loose } from '../model/loose.js';

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | {
      terminated: {
        exitCode: number;
        signal?: number;
        reason: string;
        message?: string;
        startedAt: string;
        finishedAt: string;
        containerID?: string;
      };
    };

export interface ContainerView {
  name: string;
  state: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodView {
  sandboxReady: boolean;
  hostIP: string;
  podIP?: string;
  startTime: string;
  init: ContainerView[];
  containers: ContainerView[];
  /** Pod-level reason/message (e.g. a rejected pod). */
  reason?: string;
  message?: string;
  /** A phase decided outside the containers (e.g. Failed for activeDeadlineSeconds). */
  phase?: string;
}

const isTerminated = (s: ContainerState): s is Extract<ContainerState, { terminated: unknown }> => 'terminated' in s;
const isRunning = (s: ContainerState): s is Extract<ContainerState, { running: unknown }> => 'running' in s;

function phaseOf(pod: Loose, view: PodView): string {
  const previous = pod.status?.phase as string | undefined;
  if (previous === 'Succeeded' || previous === 'Failed') return previous;
  if (view.phase) return view.phase;
  const restartPolicy = pod.spec.restartPolicy as string;
  const initFailedForGood = view.init.some((c) => isTerminated(c.state) && c.state.terminated.exitCode !== 0) && restartPolicy === 'Never';
  if (initFailedForGood) return 'Failed';
  if (view.init.some((c) => !(isTerminated(c.state) && c.state.terminated.exitCode === 0))) return 'Pending';
  let waiting = 0;
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const container of view.containers) {
    if (isRunning(container.state)) running++;
    else if (isTerminated(container.state)) {
      stopped++;
      if (container.state.terminated.exitCode === 0) succeeded++;
    } else if (container.lastState && isTerminated(container.lastState)) stopped++;
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

function containerStatus(view: ContainerView): Json {
  const status: Loose = {
    name: view.name,
    state: view.state,
    lastState: view.lastState ?? {},
    ready: view.ready,
    restartCount: view.restartCount,
    image: view.image,
    imageID: view.imageID,
  };
  if (view.containerID) status.containerID = view.containerID;
  status.started = view.started ?? isRunning(view.state);
  return status;
}

export function podStatus(pod: KObject, view: PodView): Json {
  const spec = pod.spec as Loose;
  const oldStatus = (pod.status ?? {}) as Loose;
  const oldConditions = (oldStatus.conditions ?? []) as Loose[];
  const time = now();
  const condition = (type: string, status: boolean, reason?: string, message?: string): Loose => {
    const old = oldConditions.find((c) => c.type === type);
    const text = status ? 'True' : 'False';
    const out: Loose = {
      type,
      status: text,
      lastProbeTime: null,
      lastTransitionTime: old && old.status === text ? old.lastTransitionTime : time,
    };
    if (!status && reason) out.reason = reason;
    if (!status && message) out.message = message;
    return out;
  };
  const phase = phaseOf(pod, view);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const incompleteInit = view.init.filter((c) => !(isTerminated(c.state) && c.state.terminated.exitCode === 0)).map((c) => c.name);
  const unready = view.containers.filter((c) => !c.ready).map((c) => c.name);
  const initialized = incompleteInit.length === 0 || (terminal && phase === 'Succeeded');
  const conditions: Loose[] = [
    condition('PodReadyToStartContainers', view.sandboxReady && !terminal),
    initialized
      ? condition('Initialized', true)
      : condition('Initialized', false, 'ContainersNotInitialized', `containers with incomplete status: [${incompleteInit.join(' ')}]`),
    unready.length === 0
      ? condition('Ready', true)
      : condition(
          'Ready',
          false,
          terminal ? 'PodCompleted' : 'ContainersNotReady',
          terminal ? undefined : `containers with unready status: [${unready.join(' ')}]`,
        ),
    unready.length === 0
      ? condition('ContainersReady', true)
      : condition(
          'ContainersReady',
          false,
          terminal ? 'PodCompleted' : 'ContainersNotReady',
          terminal ? undefined : `containers with unready status: [${unready.join(' ')}]`,
        ),
  ];
  const scheduled = oldConditions.find((c) => c.type === 'PodScheduled');
  conditions.push(scheduled ?? { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: time });
  const status: Loose = { phase, conditions };
  if (view.reason) status.reason = view.reason;
  if (view.message) status.message = view.message;
  status.hostIP = view.hostIP;
  status.hostIPs = [{ ip: view.hostIP }];
  if (view.podIP) {
    status.podIP = view.podIP;
    status.podIPs = [{ ip: view.podIP }];
  }
  status.startTime = view.startTime;
  if (spec.initContainers?.length) status.initContainerStatuses = view.init.map(containerStatus);
  status.containerStatuses = view.containers.map(containerStatus);
  status.qosClass = oldStatus.qosClass;
  return status;
}
