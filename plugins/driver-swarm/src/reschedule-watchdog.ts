import type { ClusterRole, Logger } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { reschedulePolicy } from '@swarm/plugin-sdk/helpers';
import type { ContainerIndex } from './container-index.js';
import type { EngineContainer } from './engine-container.js';
import type { EngineNode } from './engine-node.js';

export interface WatchdogActions {
  index: ContainerIndex;
  logger: Logger;
  /** Create through the scheduler on healthy nodes other than `failed`. */
  recreate(config: ContainerConfig, name: string, failed: EngineNode): Promise<EngineContainer>;
  start(container: EngineContainer): Promise<void>;
  /** Force-remove a container (and its anonymous volumes) on its engine. */
  remove(container: EngineContainer): Promise<void>;
  /** The longest an engine can be going down before it is marked Unhealthy. */
  failureWindowMs: number;
  /** Nodes currently Unhealthy, for a manager that just became primary. */
  unhealthyNodes(): readonly EngineNode[];
  /** How long a node stays down before its containers move (`swarm.reschedule.grace`; 0: at once). */
  graceMs: number;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function wantsReschedule(container: EngineContainer): boolean {
  try {
    return reschedulePolicy(container.config) === 'on-node-failure';
  } catch {
    return false; // a label set on the engine directly, not validated by swarm
  }
}

/**
 * The create config of a moved container: its reserved CPUs asked for again (as a create's
 * CpuShares, Swarm classic's way), the engine-assigned hostname (its old short ID) left out.
 */
function configToRecreate(container: EngineContainer): ContainerConfig {
  const { Hostname, ...rest } = container.config;
  const config = { ...rest, HostConfig: { ...rest.HostConfig, CpuShares: container.reservedCpus } };
  return Hostname === undefined || container.id.startsWith(Hostname) ? config : { ...config, Hostname };
}

/**
 * Swarm classic's watchdog: when an engine turns Unhealthy, containers with the `on-node-failure`
 * policy are re-created elsewhere (same name, swarm id, config; started if they were running);
 * when it comes back, its containers whose swarm id now lives on another node are removed.
 * Acts only while this manager is primary. One task at a time, as classic's mutex.
 */
export class RescheduleWatchdog {
  private role: ClusterRole = 'primary';
  private queue: Promise<void> = Promise.resolve();
  /** Nodes down for less than the grace period, with the timer that reschedules from them. */
  private readonly waiting = new Map<EngineNode, NodeJS.Timeout>();

  constructor(private readonly actions: WatchdogActions) {}

  setRole(role: ClusterRole): void {
    const promoted = role === 'primary' && this.role !== 'primary';
    this.role = role;
    // nodes that failed while another manager was primary still hold their containers
    if (promoted) for (const node of this.actions.unhealthyNodes()) this.nodeFailed(node);
  }

  /**
   * With a grace period, a short outage (an engine restart, a network blip) moves nothing: the
   * containers are rescheduled only if the node is still down when the period ends.
   */
  nodeFailed(node: EngineNode): void {
    const { graceMs, logger } = this.actions;
    if (graceMs <= 0) {
      this.enqueue(() => this.rescheduleFrom(node));
      return;
    }
    if (this.waiting.has(node)) return;
    logger.info(
      { node: node.name, graceMs },
      `Node ${node.name} failed - rescheduling its containers if it is still down in ${graceMs / 1000} s`,
    );
    const timer = setTimeout(() => {
      this.waiting.delete(node);
      this.enqueue(() => this.rescheduleFrom(node));
    }, graceMs);
    timer.unref();
    this.waiting.set(node, timer);
  }

  nodeReturned(node: EngineNode): void {
    const timer = this.waiting.get(node);
    if (timer) {
      clearTimeout(timer);
      this.waiting.delete(node);
      this.actions.logger.info({ node: node.name }, `Node ${node.name} came back within the grace period - nothing rescheduled`);
    }
    this.enqueue(() => this.removeDuplicatesOn(node));
  }

  /** Cancels the grace timers (the cluster stops). */
  stop(): void {
    for (const timer of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  private enqueue(task: () => Promise<void>): void {
    if (this.role !== 'primary') return;
    this.queue = this.queue
      .then(task)
      .catch((error: unknown) => this.actions.logger.error({ err: errorText(error) }, 'watchdog task failed'));
  }

  private async rescheduleFrom(node: EngineNode): Promise<void> {
    if (this.role !== 'primary' || node.isHealthy()) return;
    const { logger } = this.actions;
    logger.debug({ node: node.name }, `Node ${node.name} failed - rescheduling containers`);
    // A stopping engine stops its containers and may still answer for a while (kept-alive
    // connections): containers that stopped within the detection window count as running.
    const goingDown = Date.now() - this.actions.failureWindowMs;
    for (const container of [...node.containers()]) {
      if (container.state === 'pending' || !wantsReschedule(container)) continue;
      await this.reschedule(node, container, node.ranSince(container, goingDown));
    }
  }

  private async reschedule(node: EngineNode, container: EngineContainer, wasRunning: boolean): Promise<void> {
    const { logger } = this.actions;
    // Out of the dead node first, or the name check refuses the new container.
    node.moveAway(container.id);
    let moved: EngineContainer;
    try {
      moved = await this.actions.recreate(configToRecreate(container), container.name, node);
    } catch (error) {
      logger.error(
        { container: container.id, node: node.name, err: errorText(error) },
        `Failed to reschedule container ${container.id}: ${errorText(error)}`,
      );
      // kept where it was, so the next failure of this node tries again
      node.restore(container);
      return;
    }
    const target = moved.node.name;
    logger.info(
      { container: container.id, from: node.name, to: target, id: moved.id },
      `Rescheduled container ${container.id} from ${node.name} to ${target} as ${moved.id}`,
    );
    if (!wasRunning) return;
    logger.info({ container: container.id, id: moved.id }, `Container ${container.id} was running, starting container ${moved.id}`);
    try {
      await this.actions.start(moved);
    } catch (error) {
      logger.error({ id: moved.id, err: errorText(error) }, `Failed to start rescheduled container ${moved.id}: ${errorText(error)}`);
    }
  }

  private async removeDuplicatesOn(node: EngineNode): Promise<void> {
    const { index, logger } = this.actions;
    for (const container of [...node.containers()]) {
      const swarmId = container.swarmId;
      if (!swarmId || container.state === 'pending') continue;
      const elsewhere = index.withSwarmId(swarmId).find((other) => other.node !== node);
      if (!elsewhere) continue;
      logger.info(
        { container: container.id, node: node.name, movedTo: elsewhere.node.name },
        `Container ${container.id} was rescheduled on node ${elsewhere.node.name}, removing it`,
      );
      try {
        await this.actions.remove(container);
      } catch (error) {
        logger.error(
          { container: container.id, err: errorText(error) },
          `Failed to remove duplicate container ${container.id} on node ${node.name}: ${errorText(error)}`,
        );
      }
    }
  }
}
