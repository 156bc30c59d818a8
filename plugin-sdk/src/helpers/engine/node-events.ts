import type { ClusterEvent, EventNode } from '../../cluster.js';
import type { Node } from '../../node.js';
import type { DockerEvent } from '../../types/docker.js';

type Actor = { ID?: string; Attributes?: Record<string, string> };

/** The `node` object Swarm classic adds to every event. */
export function eventNode(node: Pick<Node, 'id' | 'name' | 'addr' | 'ip'>): EventNode {
  return { Name: node.name, Id: node.id, Addr: node.addr, Ip: node.ip };
}

/** `node.name`, `node.id`, `node.addr` and `node.ip`, as Swarm classic adds them to an event's actor. */
export function nodeAttributes(node: Pick<Node, 'id' | 'name' | 'addr' | 'ip'>): Record<string, string> {
  return { 'node.name': node.name, 'node.id': node.id, 'node.addr': node.addr, 'node.ip': node.ip };
}

/**
 * An engine's event as Swarm classic streams it (api/utils.go normalizeEvent): the node object,
 * the node in the actor's attributes, and `from` suffixed with ` node:<name>`. `attributes` adds
 * driver-specific ones (Mesos names a task's container after its `docker run` name).
 */
export function withNode(
  event: DockerEvent,
  node: Pick<Node, 'id' | 'name' | 'addr' | 'ip'>,
  attributes: Readonly<Record<string, string>> = {},
): ClusterEvent {
  const actor = (event['Actor'] ?? {}) as Actor;
  const decorated: ClusterEvent = {
    ...event,
    Actor: { ...actor, Attributes: { ...(actor.Attributes ?? {}), ...attributes, ...nodeAttributes(node) } },
    node: eventNode(node),
  };
  if (typeof event.from === 'string') decorated.from = `${event.from} node:${node.name}`;
  return decorated;
}
