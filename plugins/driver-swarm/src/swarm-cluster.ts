import type { Readable } from 'node:stream';
import {
  ErrorCodes,
  SwarmError,
  isSwarmError,
  notFound,
  type AuthConfig,
  type Cluster,
  type ClusterRole,
  type ClusterEvent,
  type ClusterInfo,
  type Container,
  type ContainerConfig,
  type DeploymentConfig,
  type Discovery,
  type DiscoveryEntry,
  type DiscoveryWatcher,
  type DockerEvent,
  type Image,
  type ImageRemoval,
  type Logger,
  type Network,
  type NetworkCreateRequest,
  type Node,
  type PlacementExplanation,
  type ProgressListener,
  type RemoveContainerOptions,
  type Scheduler,
  type TransferOptions,
  type Volume,
  type VolumeCreateRequest,
} from '@swarm/plugin-sdk';
import { readClusterOptions, type SwarmClusterOptions } from './cluster-options.js';
import { ContainerIndex } from './container-index.js';
import { createContainer, nameConflict } from './container-creation.js';
import { EngineApi } from './engine-api.js';
import type { EngineContainer } from './engine-container.js';
import { engineEndpoint, loadTlsMaterial } from './engine-endpoint.js';
import { EngineMonitor, type EngineLifecycleAction } from './engine-monitor.js';
import { EngineNode, type NodeChangeListener } from './engine-node.js';
import * as images from './image-operations.js';
import { infoRows } from './info-rows.js';
import { LoadGate } from './load-gate.js';
import { findNetwork } from './network-lookup.js';
import { splitNodePrefix } from './node-reference.js';
import { RescheduleWatchdog } from './reschedule-watchdog.js';
import * as volumes from './volume-operations.js';

/** Engines loading their containers, images, volumes and networks at the same time (see LoadGate). */
const ENGINES_LOADING_AT_ONCE = 16;
/**
 * Idle kept-alive engine connections for the whole cluster: 8 per engine up to 1,000 engines,
 * then fewer (at least 2), so 3,000 engines stay well inside a 20,000 open-files limit.
 */
const IDLE_CONNECTIONS = 8000;

function eventNode(node: EngineNode): NonNullable<ClusterEvent['node']> {
  return { Name: node.name, Id: node.id, Addr: node.addr, Ip: node.ip };
}

function nodeAttributes(node: EngineNode): Record<string, string> {
  return { 'node.name': node.name, 'node.id': node.id, 'node.addr': node.addr, 'node.ip': node.ip };
}

/** Classic adds the node to the event and to its actor's attributes (so `docker events` shows it). */
function withNode(event: DockerEvent, node: EngineNode): ClusterEvent {
  const actor = (event['Actor'] ?? {}) as { ID?: string; Attributes?: Record<string, string> };
  return { ...event, Actor: { ...actor, Attributes: { ...(actor.Attributes ?? {}), ...nodeAttributes(node) } }, node: eventNode(node) };
}

/** The cluster driver "swarm": a pool of Docker engines found by discovery, scheduled by swarm. */
export class SwarmCluster implements Cluster, NodeChangeListener {
  readonly driverName = 'swarm';
  readonly options: SwarmClusterOptions;
  private readonly monitors = new Map<string, EngineMonitor>();
  private readonly loadGate = new LoadGate(ENGINES_LOADING_AT_ONCE);
  private idlePerEngine = 0;
  private readonly index = new ContainerIndex();
  private readonly listeners = new Set<(event: ClusterEvent) => void>();
  private readonly tls;
  private watcher: DiscoveryWatcher | undefined;
  private containerCache: Container[] | undefined;
  private nodeList: EngineNode[] | undefined;
  /** The connected nodes, kept between decisions: rebuilt only when an engine connects, joins or leaves. */
  private schedulableList: EngineNode[] | undefined;
  private resourcesVersion = 0;
  private imageCache: { version: number; list: Image[] } | undefined;
  private readonly watchdog: RescheduleWatchdog;

  constructor(
    private readonly config: DeploymentConfig,
    private readonly scheduler: Scheduler,
    private readonly discovery: Discovery,
    private readonly log: Logger,
  ) {
    this.options = readClusterOptions(config.cluster);
    this.tls = loadTlsMaterial(config.cluster.tls);
    this.watchdog = new RescheduleWatchdog({
      index: this.index,
      log: this.log.child({ component: 'watchdog' }),
      recreate: (containerConfig, name, failed) =>
        this.createOn(() => this.schedulable().filter((node) => node !== failed && node.isHealthy()), containerConfig, name),
      start: (container) => this.startContainer(container),
      remove: (container) => this.removeContainer(container, { force: true, volumes: true }),
      failureWindowMs: this.options.refreshMaxMs * this.options.failureRetry + this.options.requestTimeoutMs,
      unhealthyNodes: () => this.nodes().filter((node) => node.status() === 'unhealthy'),
    });
  }

  /** Only the primary of a replicated deployment reschedules containers. */
  setRole(role: ClusterRole): void {
    this.watchdog.setRole(role);
  }

  // --- lifecycle ----------------------------------------------------------------------------------

  /** Resolves once discovery answered and every engine had its first connection attempt. */
  async start(): Promise<void> {
    const first = new Promise<void>((resolve, reject) => {
      let settled = false;
      this.watcher = this.discovery.watch(
        (entries) => {
          this.reconcile(entries);
          if (!settled) {
            settled = true;
            resolve();
          }
        },
        (error) => {
          this.log.error({ error: error.message }, 'discovery error');
          if (settled) return;
          settled = true;
          // malformed input stops start-up; a store or file that is not there yet is retried while serving
          if (isSwarmError(error, ErrorCodes.DISCOVERY_INVALID)) reject(error);
          else resolve();
        },
      );
    });
    try {
      await first;
    } catch (error) {
      await this.stop();
      throw error;
    }
    await Promise.all([...this.monitors.values()].map((monitor) => monitor.firstAttempt));
  }

  async stop(): Promise<void> {
    this.watcher?.stop();
    this.watcher = undefined;
    for (const monitor of this.monitors.values()) monitor.stop();
    await this.discovery.close();
  }

  private reconcile(entries: readonly DiscoveryEntry[]): void {
    const wanted = new Map(entries.map((entry) => [entry.addr, entry]));
    for (const [addr, monitor] of this.monitors) {
      if (wanted.has(addr)) continue;
      this.log.info({ addr }, 'engine left discovery');
      monitor.stop();
      monitor.node.clear();
      this.monitors.delete(addr);
      this.nodeList = undefined;
      this.schedulableList = undefined;
      this.resourcesChanged();
    }
    for (const entry of wanted.values()) {
      if (this.monitors.has(entry.addr)) continue;
      const endpoint = engineEndpoint(entry, this.tls);
      const node = new EngineNode(entry.addr, entry.host, endpoint, this.options.overcommitPercent, this.options.failureRetry, this);
      const api = new EngineApi(endpoint, this.options.requestTimeoutMs);
      if (this.idlePerEngine > 0) api.keepIdleConnections(this.idlePerEngine);
      const hooks = {
        lifecycle: (changed: EngineNode, action: EngineLifecycleAction) => this.lifecycle(changed, action),
        event: (source: EngineNode, event: DockerEvent) => this.publish(withNode(event, source)),
        duplicateOf: (candidate: EngineNode) => this.duplicateOf(candidate),
        loadGate: this.loadGate,
      };
      this.nodeList = undefined;
      this.monitors.set(entry.addr, new EngineMonitor(node, api, this.options, hooks, this.log.child({ engine: entry.addr })));
    }
    this.shareIdleConnections();
  }

  private shareIdleConnections(): void {
    const perEngine = Math.max(2, Math.floor(IDLE_CONNECTIONS / Math.max(1, this.monitors.size)));
    if (perEngine === this.idlePerEngine) return;
    this.idlePerEngine = perEngine;
    for (const monitor of this.monitors.values()) monitor.api.keepIdleConnections(perEngine);
  }

  private duplicateOf(candidate: EngineNode): string | undefined {
    for (const monitor of this.monitors.values()) {
      const other = monitor.node;
      if (other !== candidate && monitor.ownsEngineId() && other.engineId === candidate.engineId) return other.addr;
    }
    return undefined;
  }

  // --- change tracking (NodeChangeListener) ----------------------------------------------------------

  containerChanged(_node: EngineNode, before: EngineContainer | undefined, after: EngineContainer | undefined): void {
    this.index.update(before, after);
    this.containerCache = undefined;
  }

  resourcesChanged(): void {
    this.resourcesVersion++;
  }

  // --- events ---------------------------------------------------------------------------------------

  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private publish(event: ClusterEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.log.warn({ error: error instanceof Error ? error.message : String(error) }, 'event listener failed');
      }
    }
  }

  private lifecycle(node: EngineNode, action: EngineLifecycleAction): void {
    if (action === 'engine_connect') this.schedulableList = undefined;
    if (action === 'engine_disconnect') this.watchdog.nodeFailed(node);
    if (action === 'engine_reconnect') this.watchdog.nodeReturned(node);
    const now = Date.now();
    this.publish({
      status: action,
      from: 'swarm',
      Type: 'swarm',
      Action: action,
      Actor: { ID: node.id, Attributes: nodeAttributes(node) },
      time: Math.floor(now / 1000),
      timeNano: now * 1_000_000,
      node: eventNode(node),
    });
  }

  // --- nodes --------------------------------------------------------------------------------------------

  nodes(): readonly EngineNode[] {
    this.nodeList ??= [...this.monitors.values()].map((monitor) => monitor.node);
    return this.nodeList;
  }

  /** Nodes the scheduler sees: every validated engine (its health filter drops unhealthy ones). */
  private schedulable(): readonly EngineNode[] {
    this.schedulableList ??= [...this.monitors.values()].filter((monitor) => monitor.isConnected()).map((monitor) => monitor.node);
    return this.schedulableList;
  }

  private healthyMonitors(): EngineMonitor[] {
    return [...this.monitors.values()].filter((monitor) => monitor.node.isHealthy());
  }

  private monitorOf(node: Node): EngineMonitor {
    const monitor = this.monitors.get(node.addr);
    if (!monitor || monitor.node !== node) throw notFound(`node ${node.name || node.addr} is no longer part of the cluster`);
    return monitor;
  }

  // --- containers -------------------------------------------------------------------------------------

  createContainer(config: ContainerConfig, name: string | undefined, auth?: AuthConfig): Promise<Container> {
    return this.createOn(() => this.schedulable(), config, name, auth);
  }

  private createOn(
    candidates: () => readonly Node[],
    config: ContainerConfig,
    name: string | undefined,
    auth?: AuthConfig,
  ): Promise<EngineContainer> {
    return createContainer(
      {
        scheduler: this.scheduler,
        index: this.index,
        log: this.log,
        createRetry: this.options.createRetry,
        candidates,
        monitorOf: (node) => this.monitors.get(node.addr),
        imageExists: (image) => this.image(image) !== undefined,
      },
      config,
      name,
      auth,
    );
  }

  async startContainer(container: Container): Promise<void> {
    await this.monitorOf(container.node).startContainer(container.id);
  }

  async removeContainer(container: Container, options: RemoveContainerOptions = {}): Promise<void> {
    const monitor = this.monitorOf(container.node);
    await monitor.api.removeContainer(container.id, options.force ?? false, options.volumes ?? false);
    monitor.node.deleteContainer(container.id);
  }

  async renameContainer(container: Container, newName: string): Promise<void> {
    if (this.index.nameTaken(newName)) throw nameConflict(newName);
    const monitor = this.monitorOf(container.node);
    await monitor.api.renameContainer(container.id, newName);
    await monitor.refreshContainer(container.id);
  }

  containers(): readonly Container[] {
    this.containerCache ??= this.nodes().flatMap((node) => node.containers());
    return this.containerCache;
  }

  container(idOrName: string): Container | undefined {
    return this.index.find(idOrName);
  }

  // --- images ---------------------------------------------------------------------------------------------

  images(): readonly Image[] {
    if (this.imageCache?.version !== this.resourcesVersion) {
      this.imageCache = { version: this.resourcesVersion, list: this.nodes().flatMap((node) => node.images()) };
    }
    return this.imageCache.list;
  }

  image(idOrName: string): Image | undefined {
    for (const node of this.nodes()) {
      const image = node.image(idOrName);
      if (image) return image;
    }
    return undefined;
  }

  pullImage(reference: string, auth: AuthConfig | undefined, onProgress: ProgressListener, options?: TransferOptions): Promise<void> {
    return images.pullImage(this.healthyMonitors(), reference, auth, onProgress, options?.signal);
  }

  importImage(
    source: string,
    repository: string,
    tag: string,
    body: Readable | undefined,
    onProgress: ProgressListener,
    options?: TransferOptions,
  ): Promise<void> {
    return images.importImage(this.healthyMonitors(), source, repository, tag, body, onProgress, options?.signal);
  }

  loadImage(body: Readable, onProgress: ProgressListener, options?: TransferOptions): Promise<void> {
    return images.loadImage(this.healthyMonitors(), body, onProgress, options?.signal);
  }

  tagImage(idOrName: string, repository: string, tag: string, force: boolean): Promise<void> {
    return images.tagImage(this.healthyMonitors(), idOrName, repository, tag, force);
  }

  removeImages(idOrName: string, force: boolean): Promise<ImageRemoval[]> {
    return images.removeImages(this.healthyMonitors(), idOrName, force);
  }

  // --- volumes and networks --------------------------------------------------------------------------------

  volumes(): readonly Volume[] {
    return this.nodes().flatMap((node) => node.volumes());
  }

  volume(name: string): Volume | undefined {
    return volumes.findVolume(this.nodes(), name);
  }

  createVolume(request: VolumeCreateRequest): Promise<Volume> {
    return volumes.createVolume(this.healthyMonitors(), request);
  }

  removeVolume(name: string, force: boolean): Promise<void> {
    return volumes.removeVolume(this.healthyMonitors(), name, force);
  }

  networks(): readonly Network[] {
    return this.nodes().flatMap((node) => node.networks());
  }

  network(idOrName: string): Network | undefined {
    return findNetwork(this.nodes(), idOrName);
  }

  /** On the node named by a `node/` prefix, else on the node the scheduler picks (Swarm classic). */
  async createNetwork(request: NetworkCreateRequest): Promise<Network> {
    const { node: named, name } = splitNodePrefix(this.schedulable(), request.Name);
    const node = named ?? (await this.placeBuild({ Image: '' }));
    const monitor = this.monitorOf(node);
    const { Id } = await monitor.api.createNetwork({ ...request, Name: name, CheckDuplicate: true });
    await monitor.refreshNetworks();
    const created = monitor.node.networks().find((network) => network.id === Id);
    if (!created)
      throw new SwarmError(ErrorCodes.ENGINE_ERROR, `network ${name} was created on ${monitor.node.name} but is not listed there`);
    return created;
  }

  /** Through the network's node; one of wider scope than local (overlay) is then gone from every node's list too. */
  async removeNetwork(network: Network): Promise<void> {
    const monitor = this.monitorOf(network.node);
    await monitor.api.removeNetwork(network.id);
    for (const node of network.scope === 'local' ? [monitor.node] : this.nodes()) node.upsertNetwork(undefined, network.id);
  }

  // --- scheduling and info ------------------------------------------------------------------------------------

  placeBuild(config: ContainerConfig): Promise<Node> {
    const placement = this.scheduler.select(this.scheduler.request(config), this.schedulable());
    const chosen = placement.ranked[0]?.node;
    return chosen
      ? Promise.resolve(chosen)
      : Promise.reject(new SwarmError(ErrorCodes.NO_NODE_AVAILABLE, 'No healthy node available in the cluster'));
  }

  explain(config: ContainerConfig): PlacementExplanation {
    return this.scheduler.explain(this.scheduler.request(config), this.schedulable());
  }

  info(): ClusterInfo {
    const nodes = this.nodes();
    const totals = { ncpu: 0, memTotal: 0, containers: 0, running: 0, paused: 0, stopped: 0 };
    for (const node of nodes) {
      const counts = node.counts();
      totals.ncpu += node.cpus;
      totals.memTotal += node.memory;
      totals.containers += counts.total;
      totals.running += counts.running;
      totals.paused += counts.paused;
      totals.stopped += counts.stopped;
    }
    return {
      systemStatus: infoRows(nodes, this.scheduler),
      ncpu: totals.ncpu,
      memTotal: totals.memTotal,
      containers: totals.containers,
      containersRunning: totals.running,
      containersPaused: totals.paused,
      containersStopped: totals.stopped,
      images: new Set(this.images().map((image) => image.id)).size,
      driver: this.driverName,
    };
  }
}
