// A kubelet backed by a real Docker engine of the testbed: the node reports the engine's CPUs,
// memory, kernel, runtime version and images; pods bound to it run as containers there; logs,
// exec and attach go to the engine; the node turns NotReady when its engine stops answering.
import { PassThrough, type Readable } from 'node:stream';
import type { LogOptions, StreamIO, UsageReading } from '../api/node-agents.js';
import { errors } from '../api/status.js';
import type { Json } from '../model/decode.js';
import { formatQuantity } from '../model/quantity.js';
import type { KObject, StoreEvent } from '../store/store.js';
import { LABEL_NODE, LABEL_POD_UID, type DnsSettings } from './container-config.js';
import { Kubelet, type KubeletContext, type NodeOptions } from './kubelet.js';
import type { NodeFacts, ReadyState } from './node-status.js';
import { PodWorker } from './pod-worker.js';
import { EngineRuntime, within } from './runtime.js';
import type { Loose } from '../model/loose.js';

export interface EngineNodeOptions extends NodeOptions {
  /** The node's name (the engine's own name, as `docker info` reports it, by default). */
  name: string;
  engine: { host: string; port: number } | { socketPath: string; host?: string };
  /** Image of the pods' sandbox containers (must be on the engine). */
  pauseImage?: string;
}

const HEALTH_INTERVAL_MS = 1000;
const RESYNC_INTERVAL_MS = 10_000;
const ARCHITECTURES: Record<string, string> = { x86_64: 'amd64', aarch64: 'arm64' };

export interface EngineKubeletDeps {
  readonly engineOptions: EngineNodeOptions;
  readonly context: KubeletContext;
  readonly volumesRoot: string;
}

export class EngineKubelet extends Kubelet {
  readonly engineOptions: EngineNodeOptions;
  private readonly volumesRoot: string;

  readonly runtime: EngineRuntime;
  private engineFacts: NodeFacts | undefined;
  private runtimeUp = false;
  private readonly workers = new Map<string, PodWorker>();
  private timers: NodeJS.Timeout[] = [];
  private events: Readable | undefined;
  private eventsDown = true;
  /** The engine's bridge gateway: pods reach the cluster DNS there. */
  bridgeGateway = '';
  podCIDR = '';
  dns: () => DnsSettings | undefined = () => undefined;

  constructor({ engineOptions, context, volumesRoot }: EngineKubeletDeps) {
    super(engineOptions, context);
    this.engineOptions = engineOptions;
    this.volumesRoot = volumesRoot;
    const engine = engineOptions.engine;
    this.runtime = new EngineRuntime('socketPath' in engine ? { socketPath: engine.socketPath } : { host: engine.host, port: engine.port });
  }

  get hostIP(): string {
    const engine = this.engineOptions.engine;
    return 'socketPath' in engine ? (engine.host ?? '127.0.0.1') : engine.host;
  }

  /** Reads the engine (it must answer), then registers the node and starts serving pods. */
  async connect(): Promise<void> {
    await this.readEngine();
    this.runtimeUp = true;
    this.start();
    this.timers.push(setInterval(() => void this.checkHealth(), HEALTH_INTERVAL_MS));
    this.timers.push(setInterval(() => this.resync(), RESYNC_INTERVAL_MS));
    this.timers.push(setInterval(() => void this.readImages(), 30_000));
    this.watchEngineEvents();
    this.resync();
  }

  private async readEngine(): Promise<void> {
    const { docker } = this.runtime;
    const [info, version, bridge] = await Promise.all([docker.info(), docker.version(), docker.getNetwork('bridge').inspect()]);
    const ipam = (bridge as { IPAM?: { Config?: Array<{ Subnet?: string; Gateway?: string }> } }).IPAM?.Config?.[0];
    this.bridgeGateway = ipam?.Gateway ?? '';
    this.podCIDR = ipam?.Subnet ?? '';
    const capacity = this.options.capacity ?? {};
    this.engineFacts = {
      name: this.name,
      internalIP: this.hostIP,
      podCIDR: this.podCIDR || undefined,
      capacity: {
        cpu: capacity.cpu ?? String(info.NCPU),
        memory:
          capacity.memory ??
          formatQuantity({ nanos: BigInt(Math.floor(info.MemTotal / 1024)) * 1024n * 1_000_000_000n, format: 'BinarySI' }),
        pods: capacity.pods,
      },
      kernelVersion: info.KernelVersion,
      osImage: info.OperatingSystem,
      containerRuntimeVersion: `docker://${version.Version}`,
      architecture: ARCHITECTURES[info.Architecture] ?? info.Architecture,
      images: [],
    };
    await this.readImages();
  }

  private async readImages(): Promise<void> {
    if (!this.engineFacts) return;
    try {
      const images = await this.runtime.images();
      this.engineFacts.images = images
        .map((image) => ({
          names: [...(image.RepoDigests ?? []), ...(image.RepoTags ?? [])].filter((n) => n !== '<none>:<none>' && n !== '<none>@<none>'),
          sizeBytes: image.Size,
        }))
        .filter((image) => image.names.length > 0)
        .sort((a, b) => b.sizeBytes - a.sizeBytes);
    } catch {
      /* the engine is down: keep the last list */
    }
  }

  protected facts(): NodeFacts {
    return this.engineFacts!;
  }

  protected runtimeReady(): ReadyState {
    return this.runtimeUp ? { status: 'True' } : { status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down' };
  }

  allocatable(): Record<string, string> {
    return ((this.context.store.peek('nodes', this.name)?.status as Loose | undefined)?.allocatable ?? {}) as Record<string, string>;
  }

  private async checkHealth(): Promise<void> {
    const up = await this.runtime.ping();
    if (up === this.runtimeUp) return;
    this.runtimeUp = up;
    this.tick(true);
    if (up) {
      await this.readImages();
      this.watchEngineEvents();
      this.resync();
    }
  }

  /** Container start/die/oom on the engine: the pod worker looks at once instead of at the next resync. */
  private watchEngineEvents(): void {
    if (!this.eventsDown) return;
    this.eventsDown = false;
    this.runtime.docker.getEvents({ filters: { type: ['container'], label: [`${LABEL_NODE}=${this.name}`] } }, (error, stream) => {
      if (error || !stream) {
        this.eventsDown = true;
        return;
      }
      this.events = stream as Readable;
      let buffer = '';
      stream.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          try {
            const event = JSON.parse(line) as { status?: string; Actor?: { Attributes?: Record<string, string> } };
            const uid = event.Actor?.Attributes?.[LABEL_POD_UID];
            if (uid && ['die', 'start', 'oom', 'destroy'].includes(event.status ?? '')) this.workers.get(uid)?.requestSync();
          } catch {
            /* a partial line: wait for the rest */
          }
        }
      });
      const down = () => {
        this.eventsDown = true;
      };
      stream.on('error', down);
      stream.on('end', down);
      stream.on('close', down);
    });
  }

  private resync(): void {
    if (!this.running) return;
    for (const pod of this.context.store.values('pods')) {
      if ((pod.spec as Loose).nodeName === this.name) this.podEvent({ type: 'MODIFIED', object: pod, rv: 0 });
    }
  }

  podEvent(event: StoreEvent): void {
    if (!this.running) return;
    const pod = event.object;
    const uid = pod.metadata.uid!;
    const worker = this.workers.get(uid);
    if (event.type === 'DELETED') {
      worker?.forget();
      return;
    }
    if (worker) {
      const statusOnly =
        event.previous &&
        JSON.stringify({ ...event.previous, status: null, metadata: { ...event.previous.metadata, resourceVersion: null } }) ===
          JSON.stringify({ ...pod, status: null, metadata: { ...pod.metadata, resourceVersion: null } });
      if (statusOnly && event.rv !== 0) return;
      worker.update(pod);
      return;
    }
    const phase = (pod.status as Loose | undefined)?.phase;
    if ((phase === 'Succeeded' || phase === 'Failed') && !pod.metadata.deletionTimestamp) return;
    const created = new PodWorker(pod, {
      node: this.name,
      hostIP: this.hostIP,
      runtime: this.runtime,
      context: this.context,
      dns: () => this.dns(),
      pauseImage: this.engineOptions.pauseImage ?? 'busybox:local',
      volumesRoot: this.volumesRoot,
      allocatable: () => this.allocatable(),
      writeStatus: (target: KObject, status: Json) => {
        if (this.running) this.writePodStatus(target.metadata.namespace!, target.metadata.name, target.metadata.uid!, status);
      },
      finished: (done) => this.workers.delete(done),
    });
    this.workers.set(uid, created);
    created.requestSync();
  }

  private instanceOf(pod: KObject, container: string) {
    const worker = this.workers.get(pod.metadata.uid!);
    const instance = worker?.instance(container);
    if (!instance) throw errors.badRequest(`container "${container}" in pod "${pod.metadata.name}" is not available`);
    return instance;
  }

  async logs(pod: KObject, options: LogOptions): Promise<Readable> {
    const instance = this.instanceOf(pod, options.container);
    let id = instance.id;
    if (options.previous) {
      id = instance.previousId;
      if (!id) throw errors.badRequest(`previous terminated container "${options.container}" in pod "${pod.metadata.name}" not found`);
    } else if (!id) {
      throw errors.badRequest(
        `container "${options.container}" in pod "${pod.metadata.name}" is waiting to start: ${instance.waiting ?? 'ContainerCreating'}`,
      );
    }
    let since = 0;
    if (options.sinceSeconds !== undefined) since = Math.floor(Date.now() / 1000) - options.sinceSeconds;
    else if (options.sinceTime) since = Math.floor(new Date(options.sinceTime).getTime() / 1000);
    const container = this.runtime.docker.getContainer(id);
    const common = { stdout: true, stderr: true, timestamps: options.timestamps, tail: options.tailLines, since };
    if (options.follow) {
      const stream = (await container.logs({ ...common, follow: true })) as unknown as Readable;
      return this.runtime.merged(stream, instance.tty);
    }
    const buffer = (await container.logs({ ...common, follow: false })) as unknown as Buffer;
    const source = new PassThrough();
    source.end(buffer);
    return this.runtime.merged(source, instance.tty);
  }

  private runningContainer(pod: KObject, container: string): string {
    const instance = this.instanceOf(pod, container);
    if (!instance.id || !instance.running) throw errors.internal(`container not found ("${container}")`);
    return instance.id;
  }

  async exec(pod: KObject, container: string, command: string[], io: StreamIO): Promise<number> {
    const id = this.runningContainer(pod, container);
    const exec = await this.runtime.docker.getContainer(id).exec({
      Cmd: command,
      AttachStdin: Boolean(io.stdin),
      AttachStdout: Boolean(io.stdout),
      AttachStderr: Boolean(io.stderr),
      Tty: io.tty,
    });
    const stream = await exec.start({ hijack: true, stdin: Boolean(io.stdin), Tty: io.tty });
    io.onResize((size) => void exec.resize({ h: size.height, w: size.width }).catch(() => undefined));
    await this.pump(stream, io);
    const inspected = await exec.inspect();
    return inspected.ExitCode ?? 0;
  }

  async attach(pod: KObject, container: string, io: StreamIO): Promise<void> {
    const id = this.runningContainer(pod, container);
    const target = this.runtime.docker.getContainer(id);
    const stream = (await target.attach({
      stream: true,
      stdin: Boolean(io.stdin),
      stdout: Boolean(io.stdout),
      stderr: Boolean(io.stderr),
      hijack: true,
    })) as unknown as NodeJS.ReadWriteStream & Readable;
    io.onResize((size) => void target.resize({ h: size.height, w: size.width }).catch(() => undefined));
    io.onClose(() => stream.destroy());
    await this.pump(stream, io);
  }

  /** Copies the client's stdin to the engine stream and the engine's output back until the stream ends. */
  private pump(stream: NodeJS.ReadWriteStream & Readable, io: StreamIO): Promise<void> {
    return new Promise((resolve) => {
      if (io.stdin) {
        io.stdin.on('data', (chunk: Buffer) => stream.write(chunk));
        io.stdin.on('end', () => (stream as unknown as { end(): void }).end());
      }
      if (io.tty) stream.on('data', (chunk: Buffer) => io.stdout?.write(chunk));
      else {
        const sink = (target: NodeJS.WritableStream | undefined) => new PassThrough().on('data', (chunk: Buffer) => target?.write(chunk));
        this.runtime.docker.modem.demuxStream(stream, sink(io.stdout), sink(io.stderr));
      }
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        resolve();
      };
      stream.on('end', done);
      stream.on('close', done);
      stream.on('error', done);
    });
  }

  private async usageOf(id: string): Promise<UsageReading> {
    const stats = (await within(this.runtime.docker.getContainer(id).stats({ stream: false }), 10_000, 'stats')) as unknown as Loose;
    const cpuDelta = (stats.cpu_stats?.cpu_usage?.total_usage ?? 0) - (stats.precpu_stats?.cpu_usage?.total_usage ?? 0);
    const systemDelta = (stats.cpu_stats?.system_cpu_usage ?? 0) - (stats.precpu_stats?.system_cpu_usage ?? 0);
    const cpus = stats.cpu_stats?.online_cpus ?? 1;
    const cpuNanoCores = systemDelta > 0 ? (cpuDelta / systemDelta) * cpus * 1e9 : 0;
    const memory = stats.memory_stats ?? {};
    const inactive = memory.stats?.inactive_file ?? memory.stats?.total_inactive_file ?? 0;
    return { cpuNanoCores, memoryBytes: Math.max(0, (memory.usage ?? 0) - inactive) };
  }

  async containerUsage(pod: KObject): Promise<Array<{ name: string; usage: UsageReading }>> {
    const worker = this.workers.get(pod.metadata.uid!);
    if (!worker) return [];
    return Promise.all(worker.containerIds().map(async ({ name, id }) => ({ name, usage: await this.usageOf(id) })));
  }

  async nodeUsage(): Promise<UsageReading> {
    const ids = [...this.workers.values()].flatMap((worker) => worker.containerIds().map((entry) => entry.id));
    const readings = await Promise.all(ids.map((id) => this.usageOf(id).catch(() => ({ cpuNanoCores: 0, memoryBytes: 0 }))));
    return readings.reduce(
      (sum, r) => ({ cpuNanoCores: sum.cpuNanoCores + r.cpuNanoCores, memoryBytes: sum.memoryBytes + r.memoryBytes }),
      { cpuNanoCores: 0, memoryBytes: 0 },
    );
  }

  /** The double is going away: stop timers and remove every container this kubelet made. */
  async shutdown(): Promise<void> {
    this.running = false;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.events?.destroy();
    await Promise.all([...this.workers.values()].map((worker) => worker.halt()));
    this.workers.clear();
    try {
      const containers = await this.runtime.listByLabel(`${LABEL_NODE}=${this.name}`);
      await Promise.all(containers.map((container) => this.runtime.remove(container.Id)));
    } catch {
      /* the engine is gone already */
    }
  }
}
