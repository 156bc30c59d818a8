import { createHash } from 'node:crypto';
import type { EngineEndpoint, Image, Network, Node, NodeSnapshot, NodeStatus, Volume } from '@swarm/plugin-sdk';
import type { ImageSummary, NetworkSummary, VolumeSummary } from '@swarm/plugin-sdk/docker';
import { engineLabels, SnapshotVersions } from '@swarm/plugin-sdk/helpers';
import type { EngineContainer } from './engine-container.js';
import type { EngineInfo, EngineVersion } from './engine-api.js';
import { matchImage } from './image-match.js';
import { NodeContainers, type ContainerCounts } from './node-containers.js';
import type { JsonPool } from './shared-json.js';

/** How long a removed container's ID is remembered when the cluster does not say (twice the default request timeout). */
const DEFAULT_REMOVAL_OVERLAP_MS = 20_000;

/** Told about every container change so the cluster keeps its lookup index current. */
export interface NodeChangeListener {
  containerChanged(node: EngineNode, before: EngineContainer | undefined, after: EngineContainer | undefined): void;
  resourcesChanged(node: EngineNode): void;
}

export type { ContainerCounts } from './node-containers.js';

/** An engine's snapshot: what every node answers, and what `docker info` shows of an engine. */
export interface EngineSnapshot extends NodeSnapshot {
  readonly node: EngineNode;
  readonly engineId: string;
  readonly serverVersion: string;
  /** When the engine last answered a connect or a refresh. */
  readonly updatedAt: Date;
  readonly counts: ContainerCounts;
  /** The engine's own CPUs and memory, before overcommit. */
  readonly cpus: number;
  readonly memory: number;
}

export interface EngineNodeDeps {
  readonly addr: string;
  readonly ip: string;
  readonly engineEndpoint: EngineEndpoint;
  readonly overcommitPercent: number;
  readonly failureRetry: number;
  /**
   * How long after a removal a read begun before it can still be applied: engine calls are bounded
   * by the request timeout, so twice that is enough (default 20 s).
   */
  readonly removalOverlapMs?: number;
  readonly listener: NodeChangeListener;
  /** The cluster's pool its containers' JSON parts are shared through. */
  readonly json: JsonPool;
}

/**
 * One Docker engine as swarm knows it, all in memory: what `GET /info` said, its containers
 * (pending ones included), images, volumes, networks and health. Only the engine monitor writes it.
 */
export class EngineNode implements Node {
  readonly addr: string;
  readonly ip: string;
  private readonly engineEndpoint: EngineEndpoint;
  private readonly overcommitPercent: number;
  private readonly failureRetry: number;
  private readonly listener: NodeChangeListener;
  readonly json: JsonPool;

  engineId = '';
  name = '';
  version = '';
  /** `GET /version`'s ApiVersion and MinAPIVersion, once connected. */
  apiVersions: { readonly max: string; readonly min: string } | undefined;
  cpus = 0;
  memory = 0;
  private answeredAt = new Date();
  private failures = 0;
  private currentStatus: NodeStatus = 'pending';
  private error: string | undefined;
  private engineLabels: Record<string, string> = {};
  private readonly store: NodeContainers;
  /** IDs swarm removed on this engine with when, oldest first, for removalOverlapMs (containerRemoved). */
  private readonly removed = new Map<string, number>();
  private readonly removalOverlapMs: number;
  private imageList: Image[] = [];
  private readonly versions = new SnapshotVersions<EngineSnapshot>();
  /** A hash of the last image, volume and network lists the engine sent, to skip unchanged refreshes. */
  private readonly listAnswers = new Map<'images' | 'volumes' | 'networks', string>();
  private volumeList: Volume[] = [];
  private networkList: Network[] = [];

  constructor({ addr, ip, engineEndpoint, overcommitPercent, failureRetry, removalOverlapMs, listener, json }: EngineNodeDeps) {
    this.json = json;
    this.removalOverlapMs = removalOverlapMs ?? DEFAULT_REMOVAL_OVERLAP_MS;
    this.addr = addr;
    this.ip = ip;
    this.engineEndpoint = engineEndpoint;
    this.overcommitPercent = overcommitPercent;
    this.failureRetry = failureRetry;
    this.listener = listener;
    this.store = new NodeContainers((before, after) => {
      this.changed();
      if (before !== undefined || after !== undefined) this.listener.containerChanged(this, before, after);
    });
  }

  /** `<engine ID>|<addr>` once connected; the address alone while pending. */
  get id(): string {
    return this.engineId ? `${this.engineId}|${this.addr}` : this.addr;
  }

  applySpecs(info: EngineInfo, version: EngineVersion): void {
    this.engineId = info.ID;
    this.name = info.Name;
    this.cpus = info.NCPU;
    this.memory = info.MemTotal;
    this.engineLabels = engineLabels(info);
    this.version = version.Version;
    // a refresh re-reads /info only and passes the version it had: the API range stays as read on connect
    if (typeof version.ApiVersion === 'string') {
      this.apiVersions = {
        max: version.ApiVersion,
        min: typeof version.MinAPIVersion === 'string' ? version.MinAPIVersion : version.ApiVersion,
      };
    }
    this.changed();
  }

  // --- health -------------------------------------------------------------------------------

  status(): NodeStatus {
    return this.currentStatus;
  }

  setStatus(status: NodeStatus): void {
    this.currentStatus = status;
    this.changed();
  }

  /** Failed calls in a row; the health indicator falls with them. */
  get failureCount(): number {
    return this.failures;
  }

  set failureCount(count: number) {
    if (count === this.failures) return;
    this.failures = count;
    this.changed();
  }

  isHealthy(): boolean {
    return this.currentStatus === 'healthy';
  }

  healthIndicator(): number {
    if (this.currentStatus !== 'healthy') return 0;
    return Math.max(0, 100 - Math.floor((this.failureCount * 100) / Math.max(1, this.failureRetry)));
  }

  lastError(): string | undefined {
    return this.error;
  }

  setError(message: string | undefined): void {
    if (message === this.error) return;
    this.error = message;
    this.changed();
  }

  /** When the engine last answered a connect or a refresh. */
  get updatedAt(): Date {
    return this.answeredAt;
  }

  /** The engine answered (a connect or a refresh). */
  touch(at = new Date()): void {
    this.answeredAt = at;
    this.changed();
  }

  /**
   * Everything this engine answers as of now: the scheduler's rows and `docker info`'s are made
   * from it. Written out field by field: spreading `readSnapshot`'s object into this one
   * allocated several times more per build, and a busy engine builds one per change read
   * (docs/performance.md).
   */
  snapshot(): EngineSnapshot {
    return this.versions.current((version) => ({
      node: this,
      version,
      id: this.id,
      name: this.name,
      status: this.currentStatus,
      healthy: this.isHealthy(),
      healthIndicator: this.healthIndicator(),
      totalCpus: this.totalCpus(),
      usedCpus: this.usedCpus(),
      totalMemory: this.totalMemory(),
      usedMemory: this.usedMemory(),
      labels: this.engineLabels,
      containers: this.containers(),
      images: this.imageList,
      lastError: this.error,
      ...(this.apiVersions === undefined ? {} : { apiVersions: this.apiVersions }),
      engineId: this.engineId,
      serverVersion: this.version,
      updatedAt: this.answeredAt,
      counts: this.counts(),
      cpus: this.cpus,
      memory: this.memory,
    }));
  }

  private changed(): void {
    this.versions.changed();
  }

  endpoint(): EngineEndpoint {
    return this.engineEndpoint;
  }

  /** Calls `listener` after every change to the node's snapshot. */
  watch(listener: () => void): () => void {
    return this.versions.watch(listener);
  }

  labels(): Readonly<Record<string, string>> {
    return this.engineLabels;
  }

  // --- resources (Swarm classic: integer overcommit percentage) ------------------------------

  totalCpus(): number {
    return this.cpus + Math.floor((this.cpus * this.overcommitPercent) / 100);
  }

  totalMemory(): number {
    return this.memory + Math.floor((this.memory * this.overcommitPercent) / 100);
  }

  usedCpus(): number {
    return this.store.usedCpus();
  }

  usedMemory(): number {
    return this.store.usedMemory();
  }

  // --- containers (kept by NodeContainers) ---------------------------------------------------

  containers(): readonly EngineContainer[] {
    return this.store.all();
  }

  /** Exact ID, then name (`name` or `/name`), then a unique ID prefix. */
  container(idOrName: string): EngineContainer | undefined {
    return this.store.find(idOrName);
  }

  /** Whether the container runs, or was still running at `time` (an engine going down stops its containers first). */
  ranSince(container: EngineContainer, time: number): boolean {
    return this.store.ranSince(container, time);
  }

  knownContainer(id: string): EngineContainer | undefined {
    return this.store.known(id);
  }

  containerIds(): IterableIterator<string> {
    return this.store.ids();
  }

  counts(): ContainerCounts {
    return this.store.counts();
  }

  upsertContainer(container: EngineContainer): void {
    // a read that started before a removal (the `die` event's, a full refresh) must not bring it back
    if (this.removed.size > 0 && this.wasRemoved(container.id)) return;
    this.store.upsert(container);
  }

  /**
   * The engine removed the container (at swarm's request, or its `destroy` event says so: another
   * client's removal, seen by every manager). Engines never reuse an ID, so the ID is
   * remembered for as long as a read begun before the removal can still be applied
   * (removalOverlapMs), and such reads are refused. Kept by time, not count: a count per node would
   * be held by every node of a large cluster for good.
   */
  containerRemoved(id: string): void {
    this.forgetOldRemovals();
    this.removed.set(id, Date.now());
    this.store.delete(id);
  }

  private wasRemoved(id: string): boolean {
    this.forgetOldRemovals();
    return this.removed.has(id);
  }

  private forgetOldRemovals(): void {
    const cutoff = Date.now() - this.removalOverlapMs;
    for (const [id, at] of this.removed) {
      if (at >= cutoff) return;
      this.removed.delete(id);
    }
  }

  /** Forget a container being re-created elsewhere, until the engine answers again. */
  moveAway(id: string): void {
    this.store.moveAway(id);
  }

  /** Put back a container whose move failed. */
  restore(container: EngineContainer): void {
    this.store.restore(container);
  }

  /** The engine answers again: what it lists is real (duplicates are the watchdog's to remove). */
  acceptMovedAway(): void {
    this.store.acceptMovedAway();
  }

  deleteContainer(id: string): void {
    this.store.delete(id);
  }

  addPending(swarmId: string, container: EngineContainer): void {
    this.store.addPending(swarmId, container);
  }

  removePending(swarmId: string): void {
    this.store.removePending(swarmId);
  }

  /**
   * Whether a periodic list differs from the last one. Most refreshes bring the same lists: keeping
   * the old objects spares the cluster-wide image and network views a rebuild, and the GC the garbage.
   */
  private listsChanged(kind: 'images' | 'volumes' | 'networks', summaries: readonly object[]): boolean {
    const answer = createHash('sha1').update(JSON.stringify(summaries)).digest('base64');
    if (this.listAnswers.get(kind) === answer) return false;
    this.listAnswers.set(kind, answer);
    return true;
  }

  /** Forget everything (the node left the cluster). */
  clear(): void {
    this.listAnswers.clear();
    this.store.clear();
    this.imageList = [];
    this.volumeList = [];
    this.networkList = [];
    this.changed();
    this.listener.resourcesChanged(this);
  }

  // --- images, volumes, networks ----------------------------------------------------------------

  images(): readonly Image[] {
    return this.imageList;
  }

  image(idOrName: string): Image | undefined {
    return this.imageList.find((image) => matchImage(image.summary, idOrName));
  }

  setImages(summaries: readonly ImageSummary[]): void {
    if (!this.listsChanged('images', summaries)) return;
    this.imageList = summaries.map((summary) => ({
      id: summary.Id,
      repoTags: summary.RepoTags ?? [],
      repoDigests: summary.RepoDigests ?? [],
      summary,
      node: this,
    }));
    this.changed();
    this.listener.resourcesChanged(this);
  }

  volumes(): readonly Volume[] {
    return this.volumeList;
  }

  setVolumes(summaries: readonly VolumeSummary[]): void {
    if (!this.listsChanged('volumes', summaries)) return;
    this.volumeList = summaries.map((summary) => ({ name: summary.Name, driver: summary.Driver, summary, node: this }));
    this.listener.resourcesChanged(this);
  }

  upsertVolume(summary: VolumeSummary | undefined, name: string): void {
    this.listAnswers.delete('volumes');
    const others = this.volumeList.filter((volume) => volume.name !== name);
    this.volumeList = summary ? [...others, { name: summary.Name, driver: summary.Driver, summary, node: this }] : others;
    this.listener.resourcesChanged(this);
  }

  networks(): readonly Network[] {
    return this.networkList;
  }

  setNetworks(summaries: readonly NetworkSummary[]): void {
    if (!this.listsChanged('networks', summaries)) return;
    this.networkList = summaries.map((summary) => this.toNetwork(summary));
    this.listener.resourcesChanged(this);
  }

  upsertNetwork(summary: NetworkSummary | undefined, id: string): void {
    this.listAnswers.delete('networks');
    const others = this.networkList.filter((network) => network.id !== id);
    this.networkList = summary ? [...others, this.toNetwork(summary)] : others;
    this.listener.resourcesChanged(this);
  }

  private toNetwork(summary: NetworkSummary): Network {
    return { id: summary.Id, name: summary.Name, scope: summary.Scope ?? 'local', summary, node: this };
  }
}
