import type { ClusterEvent } from '@swarm/plugin-sdk';
import { withNode } from '@swarm/plugin-sdk/helpers';
import type { PodContainer } from './pod-container.js';

/** A Docker container event for a pod, with Swarm classic's node decoration. */
export function containerEvent(container: PodContainer, action: string, extra: Readonly<Record<string, string>> = {}): ClusterEvent {
  const now = Date.now();
  return withNode(
    {
      status: action,
      id: container.id,
      from: container.image,
      Type: 'container',
      Action: action,
      Actor: { ID: container.id, Attributes: { ...container.labels, image: container.image, name: container.name, ...extra } },
      scope: 'local',
      time: Math.floor(now / 1000),
      timeNano: now * 1_000_000,
    },
    container.node,
  );
}

/** The events a pod's change implies, in the order docker emits them. */
export function transitionEvents(before: PodContainer | undefined, after: PodContainer): ClusterEvent[] {
  const events: ClusterEvent[] = [];
  if (!before) events.push(containerEvent(after, 'create'));
  const was = before?.state;
  const wasRunning = was === 'running';
  const restarted = before !== undefined && after.dockerState.restartCount > before.dockerState.restartCount;
  const recreated = before !== undefined && before.pod.metadata?.uid !== after.pod.metadata?.uid;
  // started and ended between two watch events (a short `docker run`)
  if (was === 'created' && after.state === 'exited' && after.dockerState.startedAt !== '0001-01-01T00:00:00Z') {
    events.push(containerEvent(after, 'start'));
    events.push(containerEvent(after, 'die', { exitCode: String(after.dockerState.exitCode) }));
    return events;
  }
  if (wasRunning && (after.state !== 'running' || restarted)) {
    events.push(containerEvent(after, 'die', { exitCode: String(after.dockerState.exitCode) }));
  }
  if (after.state === 'running' && (!wasRunning || restarted || recreated)) events.push(containerEvent(after, 'start'));
  return events;
}
