// A hollow kubelet (as kubemark's): a node with no container runtime. Pods bound to it are
// reported Running at once with a pod IP from the node's CIDR, and go as soon as they are deleted.
// Logs are empty; exec and attach answer that there is no runtime.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { LogOptions, StreamIO, UsageReading } from '../api/node-agents.js';
import { errors } from '../api/status.js';
import { now } from '../model/time.js';
import type { KObject, StoreEvent } from '../store/store.js';
import { Kubelet, PODS, type KubeletContext, type NodeOptions } from './kubelet.js';
import type { NodeFacts, ReadyState } from './node-status.js';
import { podStatus } from './pod-status.js';
import type { Loose } from '../model/loose.js';

export interface HollowKubeletDeps {
  readonly options: NodeOptions;
  readonly context: KubeletContext;
  readonly index: number;
}

export class HollowKubelet extends Kubelet {
  private readonly cidrBase: string;
  private readonly ips = new Map<string, string>();
  private nextIp = 2;
  private readonly nodeFacts: NodeFacts;

  constructor({ options, context, index }: HollowKubeletDeps) {
    super(options, context);
    // 10.64.0.0/10 holds 16,384 /24 pod networks; node addresses come from 10.32.0.0/12
    this.cidrBase = `10.${64 + Math.floor(index / 256)}.${index % 256}`;
    this.nodeFacts = {
      name: options.name,
      internalIP: `10.${32 + Math.floor(index / 64000)}.${Math.floor(index / 250) % 256}.${(index % 250) + 1}`,
      podCIDR: `${this.cidrBase}.0/24`,
      capacity: { cpu: options.capacity?.cpu ?? '8', memory: options.capacity?.memory ?? '32Gi', pods: options.capacity?.pods ?? '110' },
      kernelVersion: '6.1.0-hollow',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'containerd://1.7.24',
      architecture: 'amd64',
      images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 }],
    };
  }

  protected facts(): NodeFacts {
    return this.nodeFacts;
  }

  protected runtimeReady(): ReadyState {
    return { status: 'True' };
  }

  podEvent(event: StoreEvent): void {
    if (!this.running) return;
    const pod = event.object;
    const uid = pod.metadata.uid!;
    if (event.type === 'DELETED') {
      this.ips.delete(uid);
      return;
    }
    if (pod.metadata.deletionTimestamp) {
      // nothing to stop: the pod goes at once
      setImmediate(() => this.context.registry.finishDeletion(PODS, pod.metadata.namespace, pod.metadata.name, uid));
      return;
    }
    const status = pod.status as Loose | undefined;
    if (status?.phase === 'Running' || status?.phase === 'Succeeded' || status?.phase === 'Failed') return;
    let ip = this.ips.get(uid);
    if (!ip) {
      ip = `${this.cidrBase}.${this.nextIp}`;
      this.nextIp = this.nextIp >= 254 ? 2 : this.nextIp + 1;
      this.ips.set(uid, ip);
    }
    const started = now();
    const view = (container: Loose) => ({
      name: container.name as string,
      state: { running: { startedAt: started } },
      ready: true,
      restartCount: 0,
      image: container.image as string,
      imageID: `${container.image}@sha256:${createHash('sha256').update(String(container.image)).digest('hex')}`,
      containerID: `containerd://${createHash('sha256').update(`${uid}/${container.name}`).digest('hex')}`,
      started: true,
    });
    const spec = pod.spec as Loose;
    const init = ((spec.initContainers ?? []) as Loose[]).map((container) => ({
      ...view(container),
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: started } },
      ready: true,
      started: false,
    }));
    const newStatus = podStatus(pod, {
      sandboxReady: true,
      hostIP: this.nodeFacts.internalIP,
      podIP: spec.hostNetwork ? this.nodeFacts.internalIP : ip,
      startTime: started,
      init,
      containers: ((spec.containers ?? []) as Loose[]).map(view),
    });
    this.writePodStatus(pod.metadata.namespace!, pod.metadata.name, uid, newStatus);
  }

  async logs(_pod: KObject, _options: LogOptions): Promise<Readable> {
    return Readable.from([]);
  }

  async exec(_pod: KObject, _container: string, _command: string[], _io: StreamIO): Promise<number> {
    throw errors.internal(`hollow node ${this.name} has no container runtime`);
  }

  async attach(_pod: KObject, _container: string, _io: StreamIO): Promise<void> {
    throw errors.internal(`hollow node ${this.name} has no container runtime`);
  }

  async containerUsage(pod: KObject): Promise<Array<{ name: string; usage: UsageReading }>> {
    return ((pod.spec as Loose).containers as Loose[]).map((c) => ({
      name: c.name as string,
      usage: { cpuNanoCores: 1_000_000, memoryBytes: 4 * 1024 * 1024 },
    }));
  }

  async nodeUsage(): Promise<UsageReading> {
    const pods = this.context.store.values('pods').filter((pod) => (pod.spec as Loose).nodeName === this.name).length;
    return { cpuNanoCores: 50_000_000 + pods * 1_000_000, memoryBytes: (512 + pods * 4) * 1024 * 1024 };
  }
}
