import type { ClusterEvent, Container, Node } from '@swarm/plugin-sdk';
import type { ContainerSummary } from '@swarm/plugin-sdk/docker';
import type { Sees } from './viewer.js';
import type { ActivityItem } from './wire.js';

/** One activity line and the event it came from: kept for the tick, so scoped viewers' lines can be judged. */
export interface Activity {
  readonly item: ActivityItem;
  readonly event: ClusterEvent;
}

function attributesOf(event: ClusterEvent): Readonly<Record<string, string>> {
  return (event.Actor as { Attributes?: Record<string, string> } | undefined)?.Attributes ?? {};
}

export function activityOf(event: ClusterEvent): ActivityItem | undefined {
  const action = event.Action ?? event.status ?? '';
  if (action === '' || action.startsWith('exec_')) return undefined;
  const attributes = attributesOf(event);
  const time =
    typeof event.timeNano === 'number' ? Math.floor(event.timeNano / 1e6) : typeof event.time === 'number' ? event.time * 1000 : Date.now();
  const type = action.startsWith('engine_') ? 'engine' : (event.Type ?? 'container');
  const name = type === 'engine' ? undefined : (attributes.name ?? (type === 'image' ? event.id : undefined));
  return {
    time,
    type,
    action,
    ...(event.node?.Name ? { node: event.node.Name } : {}),
    ...(name ? { name } : {}),
    ...(event.id && type !== 'engine' ? { id: event.id } : {}),
  };
}

/**
 * A container the cluster no longer lists (a `destroy` comes after it is gone), as its event tells
 * it: Docker puts the container's labels in the event's attributes, and those are what scopes read
 * (owner and team), as the host's own `docker events` judges container events.
 */
function formerContainer(id: string, attributes: Readonly<Record<string, string>>, node: Node): Container {
  const name = attributes.name ?? '';
  const image = attributes.image ?? '';
  const summary: ContainerSummary = { Id: id, Names: [`/${name}`], Image: image, Created: 0 };
  return { id, name, names: [name], image, imageId: '', state: 'removed', labels: attributes, config: { Image: image }, summary, node };
}

/** Who a line is about: everyone may see it, no scoped viewer may, or those who see this container. */
type Subject = 'everyone' | 'nobody' | Container;

// Nodes, images and the daemon belong to nobody (as for the host's `docker events`).
const SHARED_TYPES = new Set(['engine', 'image', 'daemon', 'node']);

/**
 * Judges one tick's activity for scoped viewers: each line's subject is worked out once, whatever
 * the number of viewers. A scoped viewer's `sees` judges containers only, so a network or volume
 * line shows only when it names a container they see, and a kind of event it cannot judge
 * (plugins, services, ...) does not show: access control fails closed.
 */
export class ActivityJudge {
  private readonly subjects = new Map<Activity, Subject>();
  private byId: Map<string, Container> | undefined;

  constructor(
    private readonly nodeOf: (event: ClusterEvent) => Node | undefined,
    private readonly containers: () => readonly Container[],
  ) {}

  visible(entry: Activity, sees: Sees): boolean {
    let subject = this.subjects.get(entry);
    if (subject === undefined) {
      subject = this.subjectOf(entry);
      this.subjects.set(entry, subject);
    }
    return subject === 'everyone' || (subject !== 'nobody' && sees(subject));
  }

  private subjectOf({ item, event }: Activity): Subject {
    if (SHARED_TYPES.has(item.type)) return 'everyone';
    const attributes = attributesOf(event);
    if (item.type === 'container') {
      const id = event.id ?? (event.Actor as { ID?: string } | undefined)?.ID;
      const node = this.nodeOf(event);
      if (!id || !node) return 'nobody';
      return node.container(id) ?? formerContainer(id, attributes, node);
    }
    if ((item.type === 'network' || item.type === 'volume') && attributes.container) {
      return this.container(attributes.container) ?? 'nobody';
    }
    return 'nobody';
  }

  /** By full ID, from one index built for the tick (only when some line names a container this way). */
  private container(id: string): Container | undefined {
    if (!this.byId) {
      this.byId = new Map();
      for (const container of this.containers()) this.byId.set(container.id, container);
    }
    return this.byId.get(id);
  }
}
