import { createHash } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import type { Container, EngineEndpoint, Image, Node, NodeSnapshot, NodeStatus } from '@swarm/plugin-sdk';
import { readSnapshot, SnapshotVersions } from '@swarm/plugin-sdk/helpers';
import { parseQuantity } from './quantity.js';

/** A node's images as `docker images` rows come from its status (what the kubelet reports). */
export interface NodeImages {
  images(): readonly Image[];
  image(idOrName: string): Image | undefined;
}

export interface KubeNodeHost {
  containersOn(node: KubeNode): readonly Container[];
  containerOn(node: KubeNode, idOrName: string): Container | undefined;
  /** Where the driver serves the Docker engine API of its pods (see engine-emulator/). */
  endpoint(): EngineEndpoint | undefined;
}

const BLOCKING_EFFECTS = new Set(['NoSchedule', 'NoExecute']);

/**
 * A Kubernetes Node as a swarm node: its labels are engine labels, its allocatable CPU and memory
 * its resources, its Ready condition its health. A cordoned node, or one with a NoSchedule or
 * NoExecute taint, takes no new container: its reason is the node's error, shown by `docker info`
 * and in refusals.
 */
export class KubeNode implements Node {
  readonly name: string;
  private object: k8s.V1Node;
  private nodeLabels: Record<string, string> = {};
  private imageList: Image[] = [];
  private readonly versions = new SnapshotVersions();
  /** When the node object last changed, for `docker info`'s UpdatedAt. */
  updatedAt = new Date();

  constructor(
    object: k8s.V1Node,
    private readonly host: KubeNodeHost,
  ) {
    this.name = object.metadata?.name ?? '';
    this.object = object;
    this.update(object);
  }

  update(object: k8s.V1Node): void {
    this.object = object;
    this.updatedAt = new Date();
    const info = object.status?.nodeInfo;
    this.nodeLabels = {
      ...(object.metadata?.labels ?? {}),
      kernelversion: info?.kernelVersion ?? '',
      operatingsystem: info?.osImage ?? '',
      ostype: info?.operatingSystem ?? 'linux',
      containerruntime: info?.containerRuntimeVersion ?? '',
    };
    this.imageList = (object.status?.images ?? []).flatMap((image) => nodeImage(image, this));
    this.changed();
  }

  /** Its object or its containers changed: the next `snapshot()` is a new one, read by the scheduler. */
  changed(): void {
    this.versions.changed();
  }

  get id(): string {
    return this.object.metadata?.uid ?? this.name;
  }

  get ip(): string {
    const addresses = this.object.status?.addresses ?? [];
    return (
      addresses.find((address) => address.type === 'InternalIP')?.address ??
      addresses.find((address) => address.type === 'ExternalIP')?.address ??
      this.name
    );
  }

  get addr(): string {
    const port = this.object.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 10250;
    return `${this.ip}:${port}`;
  }

  get version(): string {
    return this.object.status?.nodeInfo?.kubeletVersion ?? '';
  }

  images(): readonly Image[] {
    return this.imageList;
  }

  image(idOrName: string): Image | undefined {
    const withTag = idOrName.includes(':') || idOrName.includes('@') ? idOrName : `${idOrName}:latest`;
    return this.imageList.find((image) => image.repoTags.includes(withTag) || image.repoTags.includes(idOrName) || image.id === idOrName);
  }

  containers(): readonly Container[] {
    return this.host.containersOn(this);
  }

  container(idOrName: string): Container | undefined {
    return this.host.containerOn(this, idOrName);
  }

  totalCpus(): number {
    const cpus = parseQuantity(this.object.status?.allocatable?.['cpu'] ?? this.object.status?.capacity?.['cpu']);
    return Number.isFinite(cpus) ? cpus : 0;
  }

  usedCpus(): number {
    return this.containers().reduce((sum, container) => sum + (container.state === 'exited' ? 0 : (container.reservedCpus ?? 0)), 0);
  }

  totalMemory(): number {
    const bytes = parseQuantity(this.object.status?.allocatable?.['memory'] ?? this.object.status?.capacity?.['memory']);
    return Number.isFinite(bytes) ? Math.floor(bytes) : 0;
  }

  usedMemory(): number {
    return this.containers().reduce(
      (sum, container) => sum + (container.state === 'exited' ? 0 : Number(container.config.HostConfig?.Memory ?? 0)),
      0,
    );
  }

  labels(): Readonly<Record<string, string>> {
    return this.nodeLabels;
  }

  private ready(): k8s.V1NodeCondition | undefined {
    return this.object.status?.conditions?.find((condition) => condition.type === 'Ready');
  }

  status(): NodeStatus {
    return this.ready()?.status === 'True' ? 'healthy' : 'unhealthy';
  }

  /** Why the node takes no new container, if it does not. */
  unavailableReason(): string | undefined {
    const ready = this.ready();
    if (ready?.status !== 'True') {
      const why = ready?.message || ready?.reason || 'no Ready condition reported';
      return `node is not Ready (${ready?.status ?? 'Unknown'}): ${why}`;
    }
    if (this.object.spec?.unschedulable) return 'node is cordoned (spec.unschedulable)';
    const taint = (this.object.spec?.taints ?? []).find((candidate) => BLOCKING_EFFECTS.has(candidate.effect));
    if (taint) return `node has the taint ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
    return undefined;
  }

  isHealthy(): boolean {
    return this.unavailableReason() === undefined;
  }

  healthIndicator(): number {
    return this.isHealthy() ? 100 : 0;
  }

  lastError(): string | undefined {
    return this.unavailableReason();
  }

  endpoint(): EngineEndpoint | undefined {
    return this.host.endpoint();
  }

  snapshot(): NodeSnapshot {
    return this.versions.current((version) => readSnapshot(this, version));
  }

  watch(listener: () => void): () => void {
    return this.versions.watch(listener);
  }
}

function nodeImage(image: k8s.V1ContainerImage, node: Node): Image[] {
  const names = image.names ?? [];
  const digests = names.filter((name) => name.includes('@'));
  const tags = names.filter((name) => !name.includes('@'));
  if (names.length === 0) return [];
  // the kubelet reports names and digests, not the runtime's image ID: a digest, or one made from the names
  const id = digests[0]?.split('@')[1] ?? `sha256:${createHash('sha256').update(names.join(',')).digest('hex')}`;
  return [
    {
      id,
      repoTags: tags,
      repoDigests: digests,
      summary: {
        Id: id,
        ParentId: '',
        RepoTags: tags,
        RepoDigests: digests,
        Created: 0,
        Size: image.sizeBytes ?? 0,
        SharedSize: -1,
        VirtualSize: image.sizeBytes ?? 0,
        Labels: {},
        Containers: -1,
      },
      node,
    },
  ];
}
