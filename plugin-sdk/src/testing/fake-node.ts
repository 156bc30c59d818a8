import type { Container, Image, Node, NodeSnapshot, NodeStatus } from '../node.js';
import type { ContainerSummary } from '../types/docker.js';
import { requestedCpus, requestedMemory } from '../helpers/swarm-labels.js';
import { repositoryOf } from '../helpers/image-reference.js';
import { readSnapshot, SnapshotVersions } from '../helpers/node-snapshot.js';
import { fakeId } from './fake-ids.js';
import { runConfig, type RunSpec } from './run-config.js';

/**
 * Plain in-memory data implementing the SDK's Node, Container and Image: what a filter or a
 * strategy sees, with nothing behind it. By default everything is frozen, so a plugin that mutates what it
 * is given fails loudly in tests.
 */
export interface FakeContainerSpec extends RunSpec {
  readonly name: string;
  readonly id?: string;
  /** running (default), exited, created, pending, ... */
  readonly state?: string;
}

export interface FakeImageSpec {
  readonly id?: string;
  readonly repoTags?: readonly string[];
  readonly repoDigests?: readonly string[];
}

export interface FakeNodeSpec {
  readonly name: string;
  readonly id?: string;
  readonly ip?: string;
  readonly addr?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Total CPUs (default 4). */
  readonly cpus?: number;
  /** Total bytes (default 4 GiB). */
  readonly memory?: number;
  /** Reserved CPUs; default: the sum of the containers' reservations. */
  readonly usedCpus?: number;
  /** Reserved bytes; default: the sum of the containers' reservations. */
  readonly usedMemory?: number;
  /** Default true (status `healthy`); false gives status `unhealthy`. */
  readonly healthy?: boolean;
  readonly status?: NodeStatus;
  /** 0..100, default 100. */
  readonly healthIndicator?: number;
  readonly lastError?: string;
  readonly containers?: readonly FakeContainerSpec[];
  readonly images?: readonly FakeImageSpec[];
  /**
   * Freeze everything (default true) so a plugin that mutates what it is given fails. Benchmarks
   * pass false: V8 reads frozen arrays and hashes them for WeakMaps several times slower, and
   * real drivers hand out plain objects.
   */
  readonly frozen?: boolean;
}

const GiB = 1024 ** 3;

function deepFreeze<T>(value: T, frozen = true): T {
  // a node's snapshot versions change by design (see reportChange)
  if (!frozen || value instanceof SnapshotVersions) return value;
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // `node` is the owner, frozen by fakeNode once it is complete.
    for (const key of Object.keys(value)) if (key !== 'node') deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

function buildContainer(spec: FakeContainerSpec, node: Node, frozen: boolean): Container {
  const id = spec.id ?? fakeId(`container:${node.name}/${spec.name}`);
  const config = runConfig(spec);
  const state = spec.state ?? 'running';
  const summary: ContainerSummary = {
    Id: id,
    Names: [`/${spec.name}`],
    Image: config.Image,
    ImageID: fakeId(`image:${config.Image}`),
    Created: 0,
    State: state,
    Status: state,
    Labels: { ...(config.Labels ?? {}) },
  };
  const ports = state === 'running' ? config.HostConfig?.PortBindings : undefined;
  return deepFreeze(
    {
      id,
      name: spec.name,
      names: [spec.name],
      image: config.Image,
      imageId: summary.ImageID ?? '',
      state,
      labels: config.Labels ?? {},
      reservedCpus: requestedCpus(config),
      config,
      summary,
      inspect: {
        Id: id,
        Name: `/${spec.name}`,
        Image: summary.ImageID ?? '',
        Config: config,
        HostConfig: config.HostConfig ?? {},
        State: { Status: state, Running: state === 'running' },
        NetworkSettings: { Ports: ports ?? null },
      },
      node,
    },
    frozen,
  );
}

function buildImage(spec: FakeImageSpec, node: Node, frozen: boolean): Image {
  const repoTags = [...(spec.repoTags ?? [])];
  const id = spec.id ?? `sha256:${fakeId(`image:${repoTags[0] ?? 'none'}`)}`;
  const repoDigests = [...(spec.repoDigests ?? [])];
  return deepFreeze(
    {
      id,
      repoTags,
      repoDigests,
      summary: { Id: id, RepoTags: repoTags, RepoDigests: repoDigests, Created: 0, Size: 0 },
      node,
    },
    frozen,
  );
}

function findContainer(containers: readonly Container[], idOrName: string): Container | undefined {
  const wanted = idOrName.startsWith('/') ? idOrName.slice(1) : idOrName;
  const exact = containers.find((container) => container.id === wanted || container.name === wanted);
  if (exact) return exact;
  const byPrefix = containers.filter((container) => container.id.startsWith(wanted));
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}

function findImage(images: readonly Image[], idOrName: string): Image | undefined {
  return images.find(
    (image) =>
      image.id === idOrName ||
      image.id === `sha256:${idOrName}` ||
      image.repoTags.includes(idOrName) ||
      image.repoTags.some((tag) => repositoryOf(tag) === idOrName),
  );
}

function sum(containers: readonly Container[], read: (container: Container) => number): number {
  return containers.reduce((total, container) => total + read(container), 0);
}

/** Plain fields and prototype methods, like a driver's node: cheap to read thousands of times. */
class FakeNode implements Node {
  readonly id: string;
  readonly name: string;
  readonly ip: string;
  readonly addr: string;
  private readonly containerList: Container[] = [];
  private readonly imageList: Image[] = [];
  private readonly labelMap: Readonly<Record<string, string>>;
  private readonly cpus: number;
  private readonly memory: number;
  private reservedCpus = 0;
  private reservedMemory = 0;
  private readonly nodeStatus: NodeStatus;
  private readonly health: number;
  private readonly error: string | undefined;
  readonly versions = new SnapshotVersions();

  constructor(spec: FakeNodeSpec) {
    const index = spec.name.replace(/\D/g, '') || '1';
    this.id = spec.id ?? fakeId(`node:${spec.name}`).slice(0, 36).toUpperCase();
    this.name = spec.name;
    this.ip = spec.ip ?? `127.0.0.${(Number(index) % 250) + 1}`;
    this.addr = spec.addr ?? `${this.ip}:2375`;
    this.labelMap = deepFreeze({ ...(spec.labels ?? {}) }, spec.frozen ?? true);
    this.cpus = spec.cpus ?? 4;
    this.memory = spec.memory ?? 4 * GiB;
    this.nodeStatus = spec.status ?? ((spec.healthy ?? true) ? 'healthy' : 'unhealthy');
    this.health = spec.healthIndicator ?? 100;
    this.error = spec.lastError;
  }

  /** Fill in containers and images (they point back at this node), then the reservations. */
  populate(spec: FakeNodeSpec): this {
    const frozen = spec.frozen ?? true;
    for (const containerSpec of spec.containers ?? []) this.containerList.push(buildContainer(containerSpec, this, frozen));
    for (const imageSpec of spec.images ?? []) this.imageList.push(buildImage(imageSpec, this, frozen));
    this.reservedCpus = spec.usedCpus ?? sum(this.containerList, (container) => container.reservedCpus ?? 0);
    this.reservedMemory = spec.usedMemory ?? sum(this.containerList, (container) => requestedMemory(container.config));
    deepFreeze(this.containerList, frozen);
    deepFreeze(this.imageList, frozen);
    return deepFreeze(this, frozen);
  }

  images(): readonly Image[] {
    return this.imageList;
  }
  image(idOrName: string): Image | undefined {
    return findImage(this.imageList, idOrName);
  }
  containers(): readonly Container[] {
    return this.containerList;
  }
  container(idOrName: string): Container | undefined {
    return findContainer(this.containerList, idOrName);
  }
  totalCpus(): number {
    return this.cpus;
  }
  usedCpus(): number {
    return this.reservedCpus;
  }
  totalMemory(): number {
    return this.memory;
  }
  usedMemory(): number {
    return this.reservedMemory;
  }
  labels(): Readonly<Record<string, string>> {
    return this.labelMap;
  }
  status(): NodeStatus {
    return this.nodeStatus;
  }
  isHealthy(): boolean {
    return this.nodeStatus === 'healthy';
  }
  healthIndicator(): number {
    return this.health;
  }
  lastError(): string | undefined {
    return this.error;
  }
  endpoint(): undefined {
    return undefined;
  }
  snapshot(): NodeSnapshot {
    return this.versions.current((version) => readSnapshot(this, version));
  }
  /** A fake node never changes once built: listeners hear only `reportChange` calls. */
  watch(listener: () => void): () => void {
    return this.versions.watch(listener);
  }
}

/**
 * Tell whoever watches a fake node (the host's NodeTable) that it changed, as a driver does after
 * each placement. Fake nodes never change, so this only gives the node a new snapshot (same facts,
 * higher version) and makes it be read again: benchmarks use it to measure that path.
 */
export function reportChange(node: Node): void {
  if (!(node instanceof FakeNode)) return;
  node.versions.changed();
}

/** A Node made of plain data. */
export function fakeNode(spec: FakeNodeSpec): Node {
  return new FakeNode(spec).populate(spec);
}

/** Several nodes at once: `fakeNodes(3)` gives node1..node3, or pass specs. */
export function fakeNodes(countOrSpecs: number | readonly FakeNodeSpec[]): Node[] {
  const specs =
    typeof countOrSpecs === 'number' ? Array.from({ length: countOrSpecs }, (_, i) => ({ name: `node${i + 1}` })) : countOrSpecs;
  return specs.map(fakeNode);
}
