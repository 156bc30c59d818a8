// One pod on an engine-backed node, driven as the kubelet's pod worker drives it: a sandbox
// container for the pod's network, volumes, init containers one by one, then the containers,
// restarted by restartPolicy with CrashLoopBackOff, image pulls by imagePullPolicy, graceful
// termination on deletion, and the pod status written after every change.
import type { Json } from '../model/decode.js';
import { now } from '../model/time.js';
import type { KObject } from '../store/store.js';
import type { EventSource } from '../controllers/events.js';
import { containerConfig, LABEL_POD_UID, sandboxConfig, type DnsSettings } from './container-config.js';
import { ContainerConfigError, containerEnv } from './env.js';
import { PODS, type KubeletContext } from './kubelet.js';
import { podStatus, type ContainerState, type ContainerView } from './pod-status.js';
import { apiTime, type EngineRuntime } from './runtime.js';
import { PodVolumes, VolumeError, type PreparedVolume } from './volumes.js';
import type { Loose } from '../model/loose.js';

const HALT_WAIT_MS = 20_000;

interface ContainerRecord {
  name: string;
  id?: string;
  previousId?: string;
  restartCount: number;
  state: ContainerState;
  lastState?: ContainerState;
  imageID: string;
  /** Set while a restart waits out its back-off. */
  backoffSeconds: number;
  restartAt?: number;
  /** A failure before the container could run (pull, config, create). */
  waiting?: { reason: string; message?: string };
  pullFailures: number;
}

export interface WorkerHost {
  node: string;
  hostIP: string;
  runtime: EngineRuntime;
  context: KubeletContext;
  dns: () => DnsSettings | undefined;
  pauseImage: string;
  volumesRoot: string;
  allocatable: () => Record<string, string>;
  writeStatus(pod: KObject, status: Json): void;
  /** The worker is done (pod gone): the kubelet forgets it. */
  finished(uid: string): void;
}

const exited = (state: ContainerState): state is Extract<ContainerState, { terminated: unknown }> => 'terminated' in state;
const isRunning = (state: ContainerState) => 'running' in state;
const MIN_GRACE_SECONDS = 2;

export class PodWorker {
  private pod: KObject;
  private sandbox: { id: string; ip: string } | undefined;
  /** Sandboxes tried so far: each try has its own name, so a half-made one never blocks the next. */
  private sandboxAttempts = 0;
  private readonly init: ContainerRecord[];
  private readonly containers: ContainerRecord[];
  private readonly volumes: PodVolumes;
  private prepared: Map<string, PreparedVolume> | undefined;
  private volumesAt = 0;
  private readonly startTime = now();
  private queue: Promise<void> = Promise.resolve();
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private deleted = false;
  private done = false;
  private podReason: { reason?: string; message?: string; phase?: string } = {};

  constructor(
    pod: KObject,
    private readonly host: WorkerHost,
  ) {
    this.pod = pod;
    const record = (container: Loose): ContainerRecord => ({
      name: container.name,
      restartCount: 0,
      state: { waiting: { reason: 'PodInitializing' } },
      imageID: '',
      backoffSeconds: 0,
      pullFailures: 0,
    });
    const spec = pod.spec as Loose;
    this.init = ((spec.initContainers ?? []) as Loose[]).map(record);
    this.containers = ((spec.containers ?? []) as Loose[]).map((container) => ({
      ...record(container),
      state: { waiting: { reason: this.init.length ? 'PodInitializing' : 'ContainerCreating' } },
    }));
    for (const record of this.init) record.state = { waiting: { reason: 'PodInitializing' } };
    this.volumes = new PodVolumes({
      root: host.volumesRoot,
      store: host.context.store,
      authenticator: host.context.authenticator,
      allocatable: host.allocatable,
    });
  }

  get uid(): string {
    return this.pod.metadata.uid!;
  }

  private get source(): EventSource {
    return { component: 'kubelet', host: this.host.node };
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string, container?: string): void {
    const path = container
      ? `spec.${this.init.some((c) => c.name === container) ? 'initContainers' : 'containers'}{${container}}`
      : undefined;
    this.host.context.events.record(this.pod, type, reason, message, this.source, path);
  }

  update(pod: KObject): void {
    this.pod = pod;
    this.requestSync();
  }

  /** The pod object is gone from the API (force deletion): stop everything now. */
  forget(): void {
    this.deleted = true;
    this.requestSync();
  }

  /** Stops for good (the kubelet is shutting down): no more syncs; resolves once the current one ended. */
  halt(): Promise<void> {
    this.done = true;
    clearTimeout(this.timer);
    // the sync under way finishes, but a stop never waits on an engine call that hangs (a loaded
    // machine, a pull that does not answer) for longer than the engine calls' own timeout
    return Promise.race([this.queue, new Promise<void>((resolve) => setTimeout(resolve, HALT_WAIT_MS).unref())]);
  }

  /** Coalesces sync requests; syncs run one at a time. */
  requestSync(delayMs = 0): void {
    if (this.done) return;
    if (delayMs > 0) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.requestSync(), delayMs);
      return;
    }
    if (this.pending) return;
    this.pending = true;
    this.queue = this.queue.then(async () => {
      this.pending = false;
      try {
        await this.sync();
      } catch {
        // the engine is unreachable or refused: try again later, as the kubelet's resync does
        if (!this.done) this.requestSync(2000);
      }
    });
  }

  private spec(): Loose {
    return this.pod.spec as Loose;
  }

  private async sync(): Promise<void> {
    if (this.done) return;
    if (this.deleted) return this.teardown(false);
    if (this.pod.metadata.deletionTimestamp) return this.terminate();
    const phase = (this.pod.status as Loose | undefined)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return this.settle();
    if (!(await this.ensureSandbox())) return;
    if (!this.ensureVolumes()) return;
    await this.refresh();
    if (await this.runInit()) await this.runContainers();
    this.report();
  }

  private async ensureSandbox(): Promise<boolean> {
    const { runtime } = this.host;
    if (this.sandbox) {
      const state = await runtime.inspect(this.sandbox.id);
      if (state?.running) return true;
      // the sandbox died (engine restart, killed): dockershim kills the pod's containers and makes a new one
      this.event('Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
      for (const record of [...this.init, ...this.containers]) if (record.id) await runtime.stop(record.id, 0);
      await this.refresh();
    }
    const attempt = this.sandboxAttempts++;
    const old = this.sandbox?.id;
    try {
      const id = await runtime.create(sandboxConfig(this.pod, this.host.node, attempt, this.host.pauseImage, this.host.dns()));
      try {
        await runtime.start(id);
      } catch (error) {
        await runtime.remove(id);
        throw error;
      }
      const state = await runtime.inspect(id);
      this.sandbox = { id, ip: this.spec().hostNetwork ? this.host.hostIP : (state?.ip ?? '') };
      if (old) await runtime.remove(old);
      return true;
    } catch (error) {
      const message = `Failed to create pod sandbox: ${(error as { json?: { message?: string } }).json?.message ?? (error as Error).message}`;
      this.event('Warning', 'FailedCreatePodSandBox', message);
      for (const record of [...this.init, ...this.containers]) if (!record.id) record.waiting = { reason: 'ContainerCreating' };
      this.report();
      this.requestSync(5000);
      return false;
    }
  }

  private ensureVolumes(): boolean {
    if (this.prepared && Date.now() - this.volumesAt < 60_000) return true;
    try {
      this.prepared = this.volumes.prepare(this.pod, this.host.hostIP, this.sandbox?.ip);
      this.volumesAt = Date.now();
      return true;
    } catch (error) {
      if (!(error instanceof VolumeError)) throw error;
      this.event('Warning', 'FailedMount', error.message);
      this.report();
      this.requestSync(2000);
      return false;
    }
  }

  /** Reads the current instance of every container from the engine. */
  private async refresh(): Promise<void> {
    for (const record of [...this.init, ...this.containers]) {
      if (!record.id) continue;
      const state = await this.host.runtime.inspect(record.id);
      if (!state) {
        record.id = undefined;
        continue;
      }
      record.imageID = `docker://${state.imageId}`;
      if (state.running) record.state = { running: { startedAt: apiTime(state.startedAt) } };
      else if (state.finishedAt || state.startedAt) {
        const reason = state.oomKilled ? 'OOMKilled' : state.exitCode === 0 ? 'Completed' : 'Error';
        record.state = {
          terminated: {
            exitCode: state.exitCode,
            reason,
            ...(state.error ? { message: state.error } : {}),
            startedAt: apiTime(state.startedAt),
            finishedAt: apiTime(state.finishedAt),
            containerID: `docker://${state.id}`,
          },
        };
      }
    }
  }

  private shouldRestart(exitCode: number, init: boolean): boolean {
    const policy = this.spec().restartPolicy;
    if (init) return policy !== 'Never' && exitCode !== 0;
    return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
  }

  /** Runs init containers in order; true once all have completed. */
  private async runInit(): Promise<boolean> {
    const specs = (this.spec().initContainers ?? []) as Loose[];
    for (let i = 0; i < this.init.length; i++) {
      const record = this.init[i]!;
      if (exited(record.state) && record.state.terminated.exitCode === 0 && record.id) continue;
      if (isRunning(record.state)) return false;
      if (record.id && exited(record.state)) {
        if (!this.shouldRestart(record.state.terminated.exitCode, true)) {
          this.podReason = { phase: 'Failed' };
          return false;
        }
        if (!this.backoffOver(record)) return false;
      }
      await this.start(record, specs[i]!);
      return false;
    }
    return true;
  }

  private async runContainers(): Promise<void> {
    const specs = (this.spec().containers ?? []) as Loose[];
    for (let i = 0; i < this.containers.length; i++) {
      const record = this.containers[i]!;
      if (isRunning(record.state) && record.id) continue;
      if (record.id && exited(record.state)) {
        if (!this.shouldRestart(record.state.terminated.exitCode, false)) continue;
        if (!this.backoffOver(record)) continue;
      }
      await this.start(record, specs[i]!);
    }
  }

  /** CrashLoopBackOff: the first restart is immediate, then 10 s, 20 s, ... up to 300 s. */
  private backoffOver(record: ContainerRecord): boolean {
    const { backoffMaxSeconds } = this.host.context.timing;
    const terminated = exited(record.state) ? record.state.terminated : undefined;
    const finishedAt = terminated?.finishedAt ? new Date(terminated.finishedAt).getTime() : Date.now();
    const ranLong =
      terminated &&
      terminated.startedAt &&
      new Date(terminated.finishedAt).getTime() - new Date(terminated.startedAt).getTime() > backoffMaxSeconds * 2000;
    if (ranLong) record.backoffSeconds = 0;
    if (record.restartAt === undefined) {
      record.restartAt = record.backoffSeconds === 0 ? finishedAt : finishedAt + record.backoffSeconds * 1000;
    }
    if (Date.now() >= record.restartAt) return true;
    const podText = `${this.pod.metadata.name}_${this.pod.metadata.namespace}(${this.uid})`;
    record.waiting = {
      reason: 'CrashLoopBackOff',
      message: `back-off ${record.backoffSeconds}s restarting failed container=${record.name} pod=${podText}`,
    };
    this.event('Warning', 'BackOff', 'Back-off restarting failed container', record.name);
    this.requestSync(record.restartAt - Date.now() + 50);
    return false;
  }

  private nextBackoff(record: ContainerRecord): void {
    const { backoffInitialSeconds, backoffMaxSeconds } = this.host.context.timing;
    record.backoffSeconds = record.backoffSeconds === 0 ? backoffInitialSeconds : Math.min(backoffMaxSeconds, record.backoffSeconds * 2);
    record.restartAt = undefined;
  }

  private async ensureImage(record: ContainerRecord, spec: Loose): Promise<boolean> {
    const { runtime } = this.host;
    const image = spec.image as string;
    const policy = spec.imagePullPolicy as string;
    const present = await runtime.imagePresent(image);
    if (present && policy !== 'Always') {
      this.event('Normal', 'Pulled', `Container image "${image}" already present on machine`, record.name);
      record.imageID = present.digests[0] ? `docker-pullable://${present.digests[0]}` : `docker://${present.id}`;
      return true;
    }
    if (!present && policy === 'Never') {
      record.waiting = { reason: 'ErrImageNeverPull', message: `Container image "${image}" is not present with pull policy of Never` };
      this.event('Warning', 'ErrImageNeverPull', `Container image "${image}" is not present with pull policy of Never`, record.name);
      return false;
    }
    if (record.pullFailures > 0 && record.restartAt && Date.now() < record.restartAt) {
      record.waiting = { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` };
      this.event('Normal', 'BackOff', `Back-off pulling image "${image}"`, record.name);
      this.requestSync(record.restartAt - Date.now() + 50);
      return false;
    }
    this.event('Normal', 'Pulling', `Pulling image "${image}"`, record.name);
    const started = Date.now();
    try {
      await runtime.pull(image);
    } catch (error) {
      record.pullFailures++;
      const { backoffInitialSeconds, backoffMaxSeconds } = this.host.context.timing;
      const delay = Math.min(backoffMaxSeconds, backoffInitialSeconds * 2 ** (record.pullFailures - 1));
      record.restartAt = Date.now() + delay * 1000;
      const message = `Failed to pull image "${image}": ${(error as Error).message}`;
      record.waiting = { reason: 'ErrImagePull', message };
      this.event('Warning', 'Failed', message, record.name);
      this.event('Warning', 'Failed', 'Error: ErrImagePull', record.name);
      this.requestSync(delay * 1000 + 50);
      return false;
    }
    record.pullFailures = 0;
    record.restartAt = undefined;
    const pulled = await runtime.imagePresent(image);
    const seconds = ((Date.now() - started) / 1000).toFixed(3);
    this.event(
      'Normal',
      'Pulled',
      `Successfully pulled image "${image}" in ${seconds}s (${seconds}s including waiting). Image size: ${pulled?.size ?? 0} bytes.`,
      record.name,
    );
    record.imageID = pulled?.digests[0] ? `docker-pullable://${pulled.digests[0]}` : `docker://${pulled?.id ?? ''}`;
    return true;
  }

  private async start(record: ContainerRecord, spec: Loose): Promise<void> {
    const { runtime } = this.host;
    const restarting = record.id !== undefined;
    if (!(await this.ensureImage(record, spec))) return;
    let env: string[];
    try {
      env = containerEnv({
        store: this.host.context.store,
        pod: this.pod,
        container: spec,
        hostIP: this.host.hostIP,
        podIP: this.sandbox?.ip,
        allocatable: this.host.allocatable(),
      });
    } catch (error) {
      if (!(error instanceof ContainerConfigError)) throw error;
      record.waiting = { reason: 'CreateContainerConfigError', message: error.message };
      this.event('Warning', 'Failed', `Error: ${error.message}`, record.name);
      this.requestSync(2000);
      return;
    }
    const restartCount = restarting ? record.restartCount + 1 : record.restartCount;
    let id: string;
    try {
      id = await runtime.create(
        containerConfig({
          pod: this.pod,
          container: spec,
          node: this.host.node,
          sandboxId: this.sandbox!.id,
          restartCount,
          env,
          binds: PodVolumes.binds(spec, this.prepared!),
        }),
      );
    } catch (error) {
      const message = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
      record.waiting = { reason: 'CreateContainerError', message };
      this.event('Warning', 'Failed', `Error: ${message}`, record.name);
      this.requestSync(2000);
      return;
    }
    if (restarting) {
      if (record.previousId) await runtime.remove(record.previousId);
      record.previousId = record.id;
      record.lastState = record.state;
      this.nextBackoff(record);
    }
    record.id = id;
    record.restartCount = restartCount;
    record.waiting = undefined;
    this.event('Normal', 'Created', `Created container: ${record.name}`, record.name);
    try {
      await runtime.start(id);
      this.event('Normal', 'Started', `Started container ${record.name}`, record.name);
    } catch (error) {
      const message = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
      this.event('Warning', 'Failed', `Error: failed to start container "${record.name}": ${message}`, record.name);
      const time = now();
      record.state = {
        terminated: {
          exitCode: 128,
          reason: 'StartError',
          message,
          startedAt: '1970-01-01T00:00:00Z',
          finishedAt: time,
          containerID: `docker://${id}`,
        },
      };
      this.requestSync(50);
      return;
    }
    await this.refresh();
  }

  private view(record: ContainerRecord, spec: Loose): ContainerView {
    let state = record.state;
    if (record.waiting && !isRunning(state)) state = { waiting: { ...record.waiting } };
    else if (exited(state) && record.waiting) state = { waiting: { ...record.waiting } };
    const showLast = record.lastState && (record.restartCount > 0 || 'waiting' in state);
    let lastState = showLast ? record.lastState : undefined;
    if (record.waiting && exited(record.state)) lastState = record.state;
    const view: ContainerView = {
      name: record.name,
      state,
      ready: isRunning(state),
      restartCount: record.restartCount,
      image: spec.image,
      imageID: record.imageID,
      started: isRunning(state),
    };
    if (lastState) view.lastState = lastState;
    if (record.id) view.containerID = `docker://${record.id}`;
    return view;
  }

  private report(): void {
    const spec = this.spec();
    const status = podStatus(this.pod, {
      sandboxReady: this.sandbox !== undefined,
      hostIP: this.host.hostIP,
      podIP: this.sandbox?.ip || undefined,
      startTime: (this.pod.status as Loose | undefined)?.startTime ?? this.startTime,
      init: this.init.map((record, i) => this.view(record, (spec.initContainers ?? [])[i])),
      containers: this.containers.map((record, i) => this.view(record, spec.containers[i])),
      ...this.podReason,
    });
    this.host.writeStatus(this.pod, status);
  }

  /** A pod that reached Succeeded or Failed: its sandbox goes, its containers stay for logs. */
  private async settle(): Promise<void> {
    if (this.sandbox) {
      await this.host.runtime.stop(this.sandbox.id, 0);
    }
  }

  /** Graceful deletion: stop the containers within the grace period, report, then let the pod go. */
  private async terminate(): Promise<void> {
    const { runtime } = this.host;
    const deadline = new Date(this.pod.metadata.deletionTimestamp!).getTime();
    const grace = Math.max(
      this.pod.metadata.deletionGracePeriodSeconds === 0 ? 0 : MIN_GRACE_SECONDS,
      Math.ceil((deadline - Date.now()) / 1000),
    );
    const running = [...this.init, ...this.containers].filter((record) => record.id && isRunning(record.state));
    for (const record of running) this.event('Normal', 'Killing', `Stopping container ${record.name}`, record.name);
    await Promise.all(running.map((record) => runtime.stop(record.id!, grace)));
    await this.refresh();
    for (const record of this.containers) record.waiting = undefined;
    const allZero = this.containers.every((record) => exited(record.state) && record.state.terminated.exitCode === 0);
    const phase = (this.pod.status as Loose | undefined)?.phase;
    this.podReason = { phase: phase === 'Succeeded' || phase === 'Failed' ? phase : allZero ? 'Succeeded' : 'Failed' };
    this.report();
    await this.teardown(true);
  }

  /** Removes the pod's containers and volumes; with `finish`, asks the API server to drop the pod. */
  private async teardown(finish: boolean): Promise<void> {
    const { runtime } = this.host;
    // every container of the pod, including any a failed attempt left behind
    const containers = await runtime.listByLabel(`${LABEL_POD_UID}=${this.uid}`);
    await Promise.all(containers.map((container) => runtime.remove(container.Id)));
    this.volumes.cleanup(this.pod);
    if (finish) this.host.context.registry.finishDeletion(PODS, this.pod.metadata.namespace, this.pod.metadata.name, this.uid);
    this.done = true;
    clearTimeout(this.timer);
    this.host.finished(this.uid);
  }

  /** Ids of the current and previous instance of a container, for logs, exec and attach. */
  instance(container: string): { id?: string; previousId?: string; waiting?: string; running: boolean; tty: boolean } | undefined {
    const record = [...this.init, ...this.containers].find((r) => r.name === container);
    if (!record) return undefined;
    const spec = [...((this.spec().initContainers ?? []) as Loose[]), ...((this.spec().containers ?? []) as Loose[])].find(
      (c) => c.name === container,
    );
    const waiting = !record.id
      ? (record.waiting?.reason ?? ('waiting' in record.state ? record.state.waiting.reason : 'ContainerCreating'))
      : undefined;
    const out: { id?: string; previousId?: string; waiting?: string; running: boolean; tty: boolean } = {
      running: isRunning(record.state),
      tty: Boolean(spec?.tty),
    };
    if (record.id) out.id = record.id;
    if (record.previousId) out.previousId = record.previousId;
    if (waiting) out.waiting = waiting;
    return out;
  }

  containerIds(): Array<{ name: string; id: string }> {
    return this.containers
      .filter((record) => record.id && isRunning(record.state))
      .map((record) => ({ name: record.name, id: record.id! }));
  }
}
