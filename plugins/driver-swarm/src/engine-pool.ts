import type { DiscoveryEntry, Logger, Node } from '@swarm/plugin-sdk';
import type { EngineMonitor } from './engine-monitor.js';
import type { EngineNode } from './engine-node.js';
import { SwarmErrors } from './errors.js';

/**
 * Idle kept-alive engine connections for the whole cluster: 8 per engine up to 1,000 engines,
 * then fewer (at least 2), so 3,000 engines stay well inside a 20,000 open-files limit.
 */
const IDLE_CONNECTIONS = 8000;

export interface EnginePoolDeps {
  readonly create: (entry: DiscoveryEntry) => EngineMonitor;
  readonly left: (monitor: EngineMonitor) => void;
  readonly logger: Logger;
}

/**
 * The engines discovery found, each kept by its monitor, and the node lists derived from them:
 * every node (`nodes`), the connected ones the scheduler sees (`schedulable`), the healthy ones
 * operations fan out to.
 */
export class EnginePool {
  private readonly create: (entry: DiscoveryEntry) => EngineMonitor;
  private readonly left: (monitor: EngineMonitor) => void;
  private readonly logger: Logger;

  private readonly monitors = new Map<string, EngineMonitor>();
  private idlePerEngine = 0;
  private nodeList: EngineNode[] | undefined;
  /** Kept between decisions: rebuilt only when an engine connects, joins or leaves. */
  private schedulableList: EngineNode[] | undefined;

  constructor({ create, left, logger }: EnginePoolDeps) {
    this.create = create;
    this.left = left;
    this.logger = logger;
  }

  /** Start monitoring new entries and stop those gone from discovery. */
  reconcile(entries: readonly DiscoveryEntry[]): void {
    const wanted = new Map(entries.map((entry) => [entry.addr, entry]));
    for (const [addr, monitor] of this.monitors) {
      if (wanted.has(addr)) continue;
      this.logger.info({ addr }, 'engine left discovery');
      monitor.stop();
      monitor.node.clear();
      this.monitors.delete(addr);
      this.nodeList = undefined;
      this.schedulableList = undefined;
      this.left(monitor);
    }
    for (const entry of wanted.values()) {
      if (this.monitors.has(entry.addr)) continue;
      const monitor = this.create(entry);
      if (this.idlePerEngine > 0) monitor.api.keepIdleConnections(this.idlePerEngine);
      this.nodeList = undefined;
      this.monitors.set(entry.addr, monitor);
    }
    this.shareIdleConnections();
  }

  private shareIdleConnections(): void {
    const perEngine = Math.max(2, Math.floor(IDLE_CONNECTIONS / Math.max(1, this.monitors.size)));
    if (perEngine === this.idlePerEngine) return;
    this.idlePerEngine = perEngine;
    for (const monitor of this.monitors.values()) monitor.api.keepIdleConnections(perEngine);
  }

  /** An engine connected: the scheduler's node list is rebuilt on its next read. */
  connected(): void {
    this.schedulableList = undefined;
  }

  /** Resolves once every engine had its first connection attempt. */
  async firstAttempts(): Promise<void> {
    await Promise.all([...this.monitors.values()].map((monitor) => monitor.firstAttempt));
  }

  stop(): void {
    for (const monitor of this.monitors.values()) monitor.stop();
  }

  nodes(): readonly EngineNode[] {
    this.nodeList ??= [...this.monitors.values()].map((monitor) => monitor.node);
    return this.nodeList;
  }

  /** Nodes the scheduler sees: every validated engine (its health filter drops unhealthy ones). */
  schedulable(): readonly EngineNode[] {
    this.schedulableList ??= [...this.monitors.values()].filter((monitor) => monitor.isConnected()).map((monitor) => monitor.node);
    return this.schedulableList;
  }

  healthy(): EngineMonitor[] {
    return [...this.monitors.values()].filter((monitor) => monitor.node.isHealthy());
  }

  /** The monitor of a node the scheduler chose, if it is still part of the cluster. */
  find(node: Node): EngineMonitor | undefined {
    return this.monitors.get(node.addr);
  }

  /** The monitor of a node; NOT_FOUND when the node left the cluster. */
  of(node: Node): EngineMonitor {
    const monitor = this.monitors.get(node.addr);
    if (!monitor || monitor.node !== node) throw SwarmErrors.nodeGone({ node: node.name || node.addr });
    return monitor;
  }

  /** The address of another node already using this engine ID, if any. */
  duplicateOf(candidate: EngineNode): string | undefined {
    for (const monitor of this.monitors.values()) {
      const other = monitor.node;
      if (other !== candidate && monitor.ownsEngineId() && other.engineId === candidate.engineId) return other.addr;
    }
    return undefined;
  }
}
