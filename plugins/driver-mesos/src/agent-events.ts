import type { ClusterEvent } from '@swarm/plugin-sdk';
import type { DockerEvent } from '@swarm/plugin-sdk/docker';
import { withNode } from '@swarm/plugin-sdk/helpers';
import { MesosLabels } from './labels.js';

export interface EventSource {
  readonly id: string;
  readonly name: string;
  readonly addr: string;
  readonly ip: string;
}

/**
 * An agent engine's event as Swarm classic streams it (`withNode`). A task container's actor is
 * named after the name given to `docker run` (the engine knows it by the name Mesos gave it).
 */
export function fromAgent(event: DockerEvent, agent: EventSource): ClusterEvent {
  const given = ((event['Actor'] ?? {}) as { Attributes?: Record<string, string> }).Attributes?.[MesosLabels.name];
  return withNode(event, agent, given ? { name: given } : {});
}

/** A container event made from a task status update, for when the agent's engine cannot report it. */
export function taskEvent(
  action: 'start' | 'die',
  container: { id: string; image?: string; name?: string },
  now = Date.now(),
): DockerEvent {
  const attributes: Record<string, string> = {};
  if (container.image) attributes.image = container.image;
  if (container.name) attributes.name = container.name;
  const event: DockerEvent = {
    Type: 'container',
    Action: action,
    status: action,
    id: container.id,
    Actor: { ID: container.id, Attributes: attributes },
    time: Math.floor(now / 1000),
    timeNano: now * 1_000_000,
  };
  if (container.image) event.from = container.image;
  return event;
}
