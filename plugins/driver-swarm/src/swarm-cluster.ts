import {
  ErrorCodes,
  isSwarmError,
  type BuildPlacement,
  type Cluster,
  type ClusterCapabilities,
  type ClusterEvent,
  type ClusterInfo,
  type ClusterRole,
  type ContainerRename,
  type EnginePluginNodes,
  type Container,
  type DeploymentConfig,
  type Discovery,
  type DiscoveryEntry,
  type DiscoveryWatcher,
  type Logger,
  type Node,
  type PlacementExplanation,
  type RemoveContainerOptions,
  type Scheduler,
} from '@swarm/plugin-sdk';
import type { AuthConfig, ContainerConfig, DockerEvent } from '@swarm/plugin-sdk/docker';
import { CallSlots, readEngineTls, withNode, eventNode, nodeAttributes, type EngineTls } from '@swarm/plugin-sdk/helpers';
import { readClusterOptions, type SwarmClusterOptions } from './cluster-options.js';
import { ContainerIndex } from './container-index.js';
import { createContainer } from './container-creation.js';
import { EngineApi } from './engine-api.js';
import type { EngineContainer } from './engine-container.js';
import { engineEndpoint } from './engine-endpoint.js';
import { EngineMonitor, type EngineLifecycleAction } from './engine-monitor.js';
import { JsonPool } from './shared-json.js';
import { EngineNode, type NodeChangeListener } from './engine-node.js';
import { openFilesLimit } from './connection-budget.js';
import { EnginePool } from './engine-pool.js';
import { SwarmErrors } from './errors.js';
import { InfoRows } from './info-rows.js';
import { LoadGate } from './load-gate.js';
import { RescheduleWatchdog } from './reschedule-watchdog.js';
import { SwarmImages } from './swarm-images.js';
import { SwarmNetworks } from './swarm-networks.js';
import { SwarmVolumes } from './swarm-volumes.js';

/** Every capability, each served by the engines. */
export interface SwarmCapabilities extends ClusterCapabilities {
  readonly images: SwarmImages;
  readonly imageManagement: SwarmImages;
  readonly volumes: SwarmVolumes;
  readonly volumeManagement: SwarmVolumes;
  readonly networks: SwarmNetworks;
  readonly networkManagement: SwarmNetworks;
  readonly builds: BuildPlacement;
  readonly enginePlugins: EnginePluginNodes;
  readonly containerRename: ContainerRename;
}

/**
 * What the "swarm" driver needs from its deployment. `logger` is the deployment's; the driver logs
 * under `driver: swarm`.
 */
export interface SwarmClusterDeps {
  readonly config: DeploymentConfig;
  readonly scheduler: Scheduler;
  readonly discovery: Discovery;
  readonly logger: Logger;
}

/**
 * The cluster driver "swarm": a pool of Docker engines found by discovery, scheduled by swarm.
 * Every capability is offered: images, volumes and networks fan out to the engines, builds and
 * networks are placed by the scheduler.
 */
export class SwarmCluster implements Cluster, NodeChangeListener {
  readonly driverName = 'swarm';
  readonly options: SwarmClusterOptions;
  readonly capabilities: SwarmCapabilities;
  private readonly scheduler: Scheduler;
  private readonly discovery: Discovery;
  private readonly logger: Logger;
  private readonly pool: EnginePool;
  /** Equal JSON parts of this cluster's containers, one copy each (see shared-json.ts). */
  private readonly json = new JsonPool();
  private readonly index = new ContainerIndex();
  private readonly images: SwarmImages;
  private readonly listeners = new Set<(event: ClusterEvent) => void>();
  private readonly pendingNames = new Set<string>();
  private readonly watchdog: RescheduleWatchdog;
  private watcher: DiscoveryWatcher | undefined;
  private containerCache: Container[] | undefined;
  private readonly infoRows = new InfoRows();

  constructor(deps: SwarmClusterDeps) {
    this.scheduler = deps.scheduler;
    this.discovery = deps.discovery;
    this.logger = deps.logger.child({ driver: 'swarm' });
    this.options = readClusterOptions(deps.config.cluster);
    const tls = readEngineTls(deps.config.cluster.tls);
    // sized by the pool once it knows how many engines share the open files
    const loadGate = new LoadGate(1);
    const slots = new CallSlots(Number.MAX_SAFE_INTEGER);
    this.pool = new EnginePool({
      create: (entry) => this.monitor(entry, tls, loadGate, slots),
      left: () => this.images.changed(),
      logger: this.logger,
      slots,
      openFiles: openFilesLimit(),
      loadGate,
    });
    this.images = new SwarmImages(this.pool);
    const builds: BuildPlacement = {
      place: (config) => this.place(config),
      built: async (node) => {
        await this.pool.find(node)?.refreshImages();
      },
    };
    const volumes = new SwarmVolumes(this.pool);
    const networks = new SwarmNetworks(this.pool, builds);
    this.capabilities = {
      images: this.images,
      imagePull: this.images,
      imageManagement: this.images,
      volumes,
      volumeManagement: volumes,
      networks,
      networkManagement: networks,
      builds,
      enginePlugins: { nodes: () => this.pool.nodes() },
      containerRename: { rename: (container, newName) => this.rename(container, newName) },
    };
    this.watchdog = new RescheduleWatchdog({
      index: this.index,
      logger: this.logger.child({ component: 'watchdog' }),
      recreate: (containerConfig, name, failed) =>
        this.createOn(() => this.pool.schedulable().filter((node) => node !== failed && node.isHealthy()), containerConfig, name),
      start: (container) => this.startContainer(container),
      remove: (container) => this.removeContainer(container, { force: true, volumes: true }),
      failureWindowMs: this.options.refreshMaxMs * this.options.failureRetry + this.options.requestTimeoutMs,
      unhealthyNodes: () => this.pool.nodes().filter((node) => node.status() === 'unhealthy'),
      graceMs: this.options.rescheduleGraceMs,
    });
  }

  private monitor(entry: DiscoveryEntry, tls: EngineTls | undefined, loadGate: LoadGate, slots: CallSlots): EngineMonitor {
    const endpoint = engineEndpoint(entry, tls);
    const node = new EngineNode({
      addr: entry.addr,
      ip: entry.host,
      engineEndpoint: endpoint,
      overcommitPercent: this.options.overcommitPercent,
      failureRetry: this.options.failureRetry,
      removalOverlapMs: 2 * this.options.requestTimeoutMs,
      listener: this,
      json: this.json,
    });
    const api = new EngineApi({ endpoint, timeoutMs: this.options.requestTimeoutMs, slots });
    const hooks = {
      lifecycle: (changed: EngineNode, action: EngineLifecycleAction) => this.lifecycle(changed, action),
      event: (source: EngineNode, event: DockerEvent) => this.publish(withNode(event, source)),
      duplicateOf: (candidate: EngineNode) => this.pool.duplicateOf(candidate),
      loadGate,
      engineCount: () => this.pool.nodes().length,
    };
    return new EngineMonitor({ node, api, timings: this.options, hooks, logger: this.logger.child({ engine: entry.addr }) });
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
          this.pool.reconcile(entries);
          if (!settled) {
            settled = true;
            resolve();
          }
        },
        (error) => {
          this.logger.error({ err: error.message }, 'discovery error');
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
    await this.pool.firstAttempts();
  }

  async stop(): Promise<void> {
    this.watcher?.stop();
    this.watchdog.stop();
    this.watcher = undefined;
    this.pool.stop();
    await this.discovery.close();
  }

  // --- change tracking (NodeChangeListener) ----------------------------------------------------------

  containerChanged(_node: EngineNode, before: EngineContainer | undefined, after: EngineContainer | undefined): void {
    this.index.update(before, after);
    this.containerCache = undefined;
  }

  resourcesChanged(): void {
    this.images.changed();
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
        this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'event listener failed');
      }
    }
  }

  private lifecycle(node: EngineNode, action: EngineLifecycleAction): void {
    if (action === 'engine_connect') this.pool.connected();
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

  // --- nodes and containers ------------------------------------------------------------------------------

  nodes(): readonly EngineNode[] {
    return this.pool.nodes();
  }

  createContainer(config: ContainerConfig, name: string | undefined, auth?: AuthConfig): Promise<Container> {
    return this.createOn(() => this.pool.schedulable(), config, name, auth);
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
        logger: this.logger,
        createRetry: this.options.createRetry,
        pendingNames: this.pendingNames,
        candidates,
        monitorOf: (node) => this.pool.find(node),
        imageExists: (image) => this.images.find(image) !== undefined,
      },
      config,
      name,
      auth,
    );
  }

  async startContainer(container: Container): Promise<void> {
    await this.pool.of(container.node).startContainer(container.id);
  }

  async removeContainer(container: Container, options: RemoveContainerOptions = {}): Promise<void> {
    const monitor = this.pool.of(container.node);
    await monitor.api.removeContainer(container.id, options.force ?? false, options.volumes ?? false);
    monitor.node.containerRemoved(container.id);
  }

  private async rename(container: Container, newName: string): Promise<void> {
    if (this.index.nameTaken(newName)) throw SwarmErrors.nameInUse({ name: newName });
    const monitor = this.pool.of(container.node);
    await monitor.api.renameContainer(container.id, newName);
    await monitor.refreshContainer(container.id);
  }

  containers(): readonly Container[] {
    this.containerCache ??= this.pool.nodes().flatMap((node) => node.containers());
    return this.containerCache;
  }

  container(idOrName: string): Container | undefined {
    return this.index.find(idOrName);
  }

  // --- scheduling and info ------------------------------------------------------------------------------------

  /** Where a build (or a network without a `node/` prefix) goes: the scheduler's choice. */
  private place(config: ContainerConfig): Promise<Node> {
    const placement = this.scheduler.select(this.scheduler.request(config), this.pool.schedulable());
    const chosen = placement.ranked[0]?.node;
    return chosen ? Promise.resolve(chosen) : Promise.reject(SwarmErrors.noHealthyNode());
  }

  explain(config: ContainerConfig): PlacementExplanation {
    return this.scheduler.explain(this.scheduler.request(config), this.pool.schedulable());
  }

  info(): ClusterInfo {
    const { rows, totals } = this.infoRows.answer(this.pool.nodes(), this.scheduler);
    return {
      systemStatus: rows,
      ncpu: totals.ncpu,
      memTotal: totals.memTotal,
      containers: totals.containers,
      containersRunning: totals.running,
      containersPaused: totals.paused,
      containersStopped: totals.stopped,
      images: this.images.distinctCount(),
      driver: this.driverName,
    };
  }
}
