import type { ClusterEvent, Logger } from '@swarm/plugin-sdk';
import type { DockerEvent } from '@swarm/plugin-sdk/docker';
import type { MesosAgent } from './agent.js';
import { fromAgent, taskEvent } from './agent-events.js';
import { EventDedup } from './event-dedup.js';
import { MesosLabels } from './labels.js';
import type { TaskStatus } from './protocol.js';
import { containerDetailsFromStatus, containerIdFromStatus } from './task-status.js';

/**
 * The cluster's `docker events`: the agents' engines' own events with the node added, and a task
 * update's start or death only when the agent's engine stream could not tell it (see EventDedup).
 */
export class MesosEvents {
  private readonly listeners = new Set<(event: ClusterEvent) => void>();
  private readonly dedup = new EventDedup();

  constructor(private readonly logger: Logger) {}

  subscribe(listener: (event: ClusterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An event of an agent's engine. */
  fromEngine(agent: MesosAgent, event: DockerEvent): void {
    const actorId = (event['Actor'] as { ID?: string } | undefined)?.ID;
    const containerId = (event.Type ?? 'container') === 'container' ? (event.id ?? actorId) : undefined;
    if (containerId && !this.dedup.engineEvent(containerId, event.Action ?? event.status ?? '')) return;
    this.publish(fromAgent(event, agent));
  }

  /** The start or death a task update implies, unless the agent's engine tells it. */
  fromTask(status: TaskStatus, agent: MesosAgent): void {
    const action = status.state === 'TASK_RUNNING' ? 'start' : 'die';
    const known = agent.containers().find((container) => container.labels[MesosLabels.task] === status.task_id.value);
    const containerId = containerIdFromStatus(status) ?? known?.id;
    if (!containerId || !this.dedup.taskEvent(containerId, action, agent.events.isLive())) return;
    const details = known ? { image: known.image, name: known.name } : containerDetailsFromStatus(status);
    this.publish(fromAgent(taskEvent(action, { id: containerId, ...details }), agent));
  }

  private publish(event: ClusterEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'mesos: event listener failed');
      }
    }
  }
}
