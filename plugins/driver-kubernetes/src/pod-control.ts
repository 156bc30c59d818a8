import type * as k8s from '@kubernetes/client-node';
import type { Logger } from '@swarm/plugin-sdk';
import { KubernetesErrors } from './errors.js';
import { apiStatus, type KubeApi } from './kube-api.js';
import { PodMarks } from './labels.js';
import type { PodContainer } from './pod-container.js';
import type { PodIndex } from './pod-index.js';

const START_TIMEOUT_MS = 300_000;
const GONE_TIMEOUT_MS = 60_000;
const STOP_EXTRA_MS = 30_000;

export type ContainerEventAction = 'kill' | 'stop' | 'restart';

/**
 * Docker's container verbs over pods. A pod cannot be stopped and started again, so `docker stop`
 * deletes it gracefully while a finalizer keeps the object (and its exit code) listed until
 * `docker rm`; `docker start` of a stopped container makes the pod again on the same node, with the
 * same docker ID and name.
 */
export class PodControl {
  /** Pods deleted to be made again by `docker start`: their deletion is no `destroy`. */
  readonly recreating = new Set<string>();
  /** Attached clients per pod: `--rm` waits for them to have read the output before removing. */
  private readonly attached = new Map<string, number>();

  /** Runs `stream` counted as an attached client of the pod. */
  async whileAttached<T>(podName: string, stream: () => Promise<T>): Promise<T> {
    this.attached.set(podName, (this.attached.get(podName) ?? 0) + 1);
    try {
      return await stream();
    } finally {
      const left = (this.attached.get(podName) ?? 1) - 1;
      if (left > 0) this.attached.set(podName, left);
      else this.attached.delete(podName);
    }
  }

  /** Resolves once no client is attached to the pod (or after `timeoutMs`). */
  async detached(podName: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.attached.has(podName) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  private readonly api: KubeApi;
  private readonly index: PodIndex;
  private readonly logger: Logger;
  private readonly emit: (container: PodContainer, action: ContainerEventAction, extra?: Record<string, string>) => void;

  constructor(options: {
    api: KubeApi;
    index: PodIndex;
    logger: Logger;
    emit: (container: PodContainer, action: ContainerEventAction, extra?: Record<string, string>) => void;
  }) {
    this.api = options.api;
    this.index = options.index;
    this.logger = options.logger;
    this.emit = options.emit;
  }

  current(container: PodContainer): PodContainer {
    return this.index.byPodName(container.podName) ?? container;
  }

  /** `docker start`: bind a created pod to its node, or make a stopped one again; resolves once it runs (or ran). */
  async start(given: PodContainer): Promise<void> {
    let container = this.current(given);
    if (container.state === 'running' || container.state === 'restarting') return;
    if (!container.bound && !container.deleting) {
      const node = container.pod.metadata?.annotations?.[PodMarks.node] ?? container.node.name;
      await this.api.bindPod(container.podName, node);
      // the binding's effect arrives with the watch; read it now so the wait below sees this pod bound
      this.index.put(await this.api.readPod(container.podName));
    } else {
      await this.recreate(container);
    }
    container = this.current(container);
    const started = await this.index.waitFor(
      container.podName,
      (now) => !now || now.state !== 'created' || now.dockerState.error !== '',
      START_TIMEOUT_MS,
    );
    const now = this.index.byPodName(container.podName);
    if (!started || !now) throw KubernetesErrors.timeout({ what: `the start of ${container.name}`, after: `${START_TIMEOUT_MS / 1000}s` });
    if (now.state === 'created' && now.dockerState.error) {
      throw KubernetesErrors.apiRefused({ status: 500, what: `cannot start container ${now.name}`, message: now.dockerState.error });
    }
  }

  /** Resolves true once the container has started (or ended); false if it is gone or never starts. */
  async waitStarted(given: PodContainer): Promise<boolean> {
    const podName = given.podName;
    await this.index.waitFor(podName, (now) => !now || (now.state !== 'created' && now.bound), START_TIMEOUT_MS);
    const now = this.index.byPodName(podName);
    return now !== undefined && now.state !== 'created';
  }

  /**
   * A container's pod made again (a stopped one restarted, or one moved off a failed node): same
   * annotations and spec, bound at once to `node` (by default the node it ran on).
   */
  async recreate(container: PodContainer, node?: string): Promise<void> {
    const old = container.pod;
    const target = node ?? old.spec?.nodeName ?? old.metadata?.annotations?.[PodMarks.node];
    const pod: k8s.V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: container.podName,
        labels: { ...(old.metadata?.labels ?? {}) },
        annotations: { ...(old.metadata?.annotations ?? {}), ...(target ? { [PodMarks.node]: target } : {}) },
        finalizers: [PodMarks.keep],
      },
      spec: { ...structuredClone(old.spec!), nodeName: target },
    };
    this.recreating.add(container.podName);
    try {
      await this.removePod(container, 0);
      this.index.put(await this.api.createPod(pod));
    } finally {
      this.recreating.delete(container.podName);
    }
  }

  /** `docker stop -t`: graceful deletion; resolves when the container has stopped. */
  async stop(given: PodContainer, timeoutSeconds: number | undefined): Promise<boolean> {
    const container = this.current(given);
    if (container.state !== 'running' && container.state !== 'restarting') return false;
    const grace = timeoutSeconds ?? container.pod.spec?.terminationGracePeriodSeconds ?? 10;
    await this.deleteGracefully(container, Math.max(0, grace));
    await this.index.waitFor(container.podName, (now) => !now || now.state === 'exited', grace * 1000 + STOP_EXTRA_MS);
    this.emit(container, 'stop');
    return true;
  }

  /** `docker kill`: SIGKILL is a deletion without grace; other signals are sent by `kill` inside the container. */
  async kill(given: PodContainer, signal: string, sendSignal: (container: PodContainer, signal: string) => Promise<void>): Promise<void> {
    const container = this.current(given);
    if (container.state !== 'running' && container.state !== 'restarting') throw KubernetesErrors.notRunning({ id: container.id });
    const normalized = signal.toUpperCase().replace(/^SIG/, '');
    if (normalized === '' || normalized === 'KILL' || normalized === '9') {
      await this.deleteGracefully(container, 0);
      this.emit(container, 'kill', { signal: 'SIGKILL' });
      await this.index.waitFor(container.podName, (now) => !now || now.state === 'exited', STOP_EXTRA_MS);
      return;
    }
    if (!/^([A-Z0-9]+|\d+)$/.test(normalized)) throw KubernetesErrors.badSignal({ signal });
    await sendSignal(container, normalized);
    this.emit(container, 'kill', { signal: /^\d+$/.test(normalized) ? normalized : `SIG${normalized}` });
  }

  async restart(container: PodContainer, timeoutSeconds: number | undefined): Promise<void> {
    await this.stop(container, timeoutSeconds);
    await this.start(container);
    this.emit(this.current(container), 'restart');
  }

  /** `docker rm`: a running container needs `-f`; the pod and its finalizer go, and the call returns once it is gone. */
  async remove(given: PodContainer, force: boolean): Promise<void> {
    const container = this.current(given);
    const running = container.state === 'running' || container.state === 'restarting';
    if (running && !force && !container.deleting) throw KubernetesErrors.removeRunning({ id: container.id });
    await this.removePod(container, 0);
  }

  private async deleteGracefully(container: PodContainer, grace: number): Promise<void> {
    await this.api.deletePod(container.podName, grace, container.pod.metadata?.uid).catch((error: unknown) => {
      if (apiStatus(error) !== 404) throw error;
    });
  }

  /** Drops the finalizer, deletes without grace, and waits until the pod object is gone. */
  private async removePod(container: PodContainer, grace: number): Promise<void> {
    const uid = container.pod.metadata?.uid;
    const ignoreGone = (error: unknown) => {
      if (apiStatus(error) !== 404) throw error;
    };
    await this.api.patchPodMetadata(container.podName, { finalizers: null }).catch(ignoreGone);
    await this.api.deletePod(container.podName, grace, uid).catch((error: unknown) => {
      // 409: the precondition names an older pod: this one is already gone
      if (apiStatus(error) !== 404 && apiStatus(error) !== 409) throw error;
    });
    const gone = await this.index.waitFor(container.podName, (now) => !now || now.pod.metadata?.uid !== uid, GONE_TIMEOUT_MS);
    if (!gone) {
      this.logger.warn({ pod: container.podName }, 'kubernetes: pod still listed after its deletion');
      throw KubernetesErrors.timeout({ what: `the removal of ${container.name}`, after: `${GONE_TIMEOUT_MS / 1000}s` });
    }
  }

  /** `docker wait`: resolves with the exit code once the container is not running (or, for "removed", gone). */
  async wait(given: PodContainer, condition: string, signal: AbortSignal): Promise<number> {
    const container = this.current(given);
    const podName = container.podName;
    const uid = container.pod.metadata?.uid;
    const nextExit = condition === 'next-exit';
    const removed = condition === 'removed';
    let sawRun = container.state === 'running' || container.state === 'created';
    let lastExit = container.dockerState.exitCode;
    const done = (now: PodContainer | undefined): boolean => {
      if (!now) return true;
      lastExit = now.dockerState.exitCode;
      if (removed) return false;
      if (!nextExit && now.state === 'created') return true; // docker: a created container is not running
      if (now.state === 'running' || now.state === 'created') sawRun = true;
      const stopped = now.state === 'exited' || (now.pod.metadata?.uid !== uid && now.state !== 'running');
      return stopped && (!nextExit || sawRun);
    };
    for (;;) {
      if (signal.aborted) return lastExit;
      const aborted = new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
      const finished = await Promise.race([this.index.waitFor(podName, done, 3_600_000), aborted]);
      if (finished) return lastExit;
    }
  }
}
