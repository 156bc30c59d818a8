import type { ClusterEvent, DockerEvent, EventNode } from '@swarm/plugin-sdk';
import { MesosLabels } from './labels.js';

export interface EventSource {
  readonly id: string;
  readonly name: string;
  readonly addr: string;
  readonly ip: string;
}

type Actor = { ID?: string; Attributes?: Record<string, string> };

export function eventNode(agent: EventSource): EventNode {
  return { Name: agent.name, Id: agent.id, Addr: agent.addr, Ip: agent.ip };
}

/**
 * An agent engine's event as Swarm classic streams it: the node object, `from` suffixed with
 * ` node:<name>`, and the node in the actor's attributes. A task container's actor is named after
 * the name given to `docker run` (the engine knows it by the name Mesos gave it).
 */
export function fromAgent(event: DockerEvent, agent: EventSource): ClusterEvent {
  const actor = (event['Actor'] ?? {}) as Actor;
  const attributes: Record<string, string> = { ...(actor.Attributes ?? {}) };
  const given = attributes[MesosLabels.name];
  if (given) attributes.name = given;
  Object.assign(attributes, { 'node.name': agent.name, 'node.id': agent.id, 'node.addr': agent.addr, 'node.ip': agent.ip });
  const decorated: ClusterEvent = { ...event, Actor: { ...actor, Attributes: attributes }, node: eventNode(agent) };
  if (typeof event.from === 'string') decorated.from = `${event.from} node:${agent.name}`;
  return decorated;
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
