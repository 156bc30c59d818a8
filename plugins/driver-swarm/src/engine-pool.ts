import type { DiscoveryEntry, Logger, Node } from '@swarm/plugin-sdk';
import type { CallSlots } from '@swarm/plugin-sdk/helpers';
import { connectionPlan, loadsAtOnce, openFilesNeeded, type ConnectionPlan } from './connection-budget.js';
import type { LoadGate } from './load-gate.js';
import type { EngineMonitor } from './engine-monitor.js';
import type { EngineNode } from './engine-node.js';
import { SwarmErrors } from './errors.js';

export interface EnginePoolDeps {
  readonly create: (entry: DiscoveryEntry) => EngineMonitor;
  readonly left: (monitor: EngineMonitor) => void;
  readonly logger: Logger;
  /** Shared by the engines' calls: resized to what the open files allow for the engines there are. */
  readonly slots: CallSlots;
  /** The process's open-files limit (undefined: unknown). */
  readonly openFiles: number | undefined;
  /** Engines loading their whole state at once: resized with the plan. */
  readonly loadGate: LoadGate;
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
  private readonly slots: CallSlots;
  private readonly openFiles: number | undefined;
  private readonly loadGate: LoadGate;

  private readonly monitors = new Map<string, EngineMonitor>();
  private plan: ConnectionPlan | undefined;
  private nodeList: EngineNode[] | undefined;
  /** Kept between decisions: rebuilt only when an engine connects, joins or leaves. */
  private schedulableList: readonly EngineNode[] | undefined;

  constructor({ create, left, logger, slots, openFiles, loadGate }: EnginePoolDeps) {
    this.create = create;
    this.left = left;
    this.logger = logger;
    this.slots = slots;
    this.openFiles = openFiles;
    this.loadGate = loadGate;
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
      this.nodeList = undefined;
      this.monitors.set(entry.addr, monitor);
      if (this.plan !== undefined) monitor.api.useConnections(this.plan);
    }
    this.planConnections();
  }

  /** Shares the open files out again when the number of engines changed what each may keep. */
  private planConnections(): void {
    const plan = connectionPlan(this.monitors.size, this.openFiles);
    this.slots.resize(plan.callsInFlight ?? Number.MAX_SAFE_INTEGER);
    this.loadGate.resize(loadsAtOnce(plan));
    const before = this.plan;
    this.plan = plan;
    if (plan.short && !before?.short) {
      const warning = SwarmErrors.openFilesShort({
        limit: this.openFiles ?? 0,
        engines: this.monitors.size,
        needed: openFilesNeeded(this.monitors.size),
      });
      this.logger.warn({ code: warning.code }, warning.message);
    }
    if (before?.callIdle === plan.callIdle && before.livenessIdle === plan.livenessIdle) return;
    for (const monitor of this.monitors.values()) monitor.api.useConnections(plan);
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

  /**
   * Nodes the scheduler sees: every validated engine (its health filter drops unhealthy ones). Frozen,
   * and the same array until an engine comes or goes, so the scheduler's table knows it unchanged at a glance.
   */
  schedulable(): readonly EngineNode[] {
    this.schedulableList ??= Object.freeze(
      [...this.monitors.values()].filter((monitor) => monitor.isConnected()).map((monitor) => monitor.node),
    );
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
