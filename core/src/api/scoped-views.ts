import type { ClusterEvent, Container, Node } from '@swarm/plugin-sdk';
import type { AccessObject } from '@swarm/plugin-sdk/access';
import { containerObject, imageRowObject, networkObject, volumeObject } from '../access/access-objects.js';
import { imageEventObject } from '../access/scoped-images.js';
import { visibleItems, type RequestAccess } from '../access/request-access.js';
import type { Answer } from './answers.js';
import type { ApiContext } from './context.js';

/*
 * What a caller with a narrower view sees of the answers that sum up the whole cluster: events,
 * `docker info`'s counts and `system df`. What they may not see is left out, as if it did not exist.
 */

function eventActor(event: ClusterEvent): { id?: string; attributes: Readonly<Record<string, string>> } {
  const actor = event.Actor as { ID?: string; Attributes?: Record<string, string> } | undefined;
  return { id: actor?.ID ?? event.id, attributes: actor?.Attributes ?? {} };
}

/**
 * The object an event is about. A container event carries the container's labels as attributes;
 * network and volume events carry none, so those objects are looked up (one removed since is
 * shown to no scoped caller). An image event carries its image's labels, as a container's does.
 * Nodes and the daemon belong to nobody.
 */
function eventObject(api: ApiContext, event: ClusterEvent): AccessObject | 'shared' | undefined {
  const { id, attributes } = eventActor(event);
  switch (event.Type ?? 'container') {
    case 'container':
      return {
        kind: 'container',
        ...(id ? { id } : {}),
        ...(attributes.name ? { name: attributes.name } : {}),
        labels: attributes,
        ...(event.node?.Name ? { node: event.node.Name } : {}),
      };
    case 'network': {
      const network = id ? api.cluster.capabilities?.networks?.list().find((candidate) => candidate.id === id) : undefined;
      return network ? networkObject(network) : undefined;
    }
    case 'volume': {
      const volume = id
        ? api.cluster.capabilities?.volumes
            ?.list()
            .find((candidate) => candidate.name === id && (!event.node || candidate.node.name === event.node.Name))
        : undefined;
      return volume ? volumeObject(volume) : undefined;
    }
    case 'image':
      return imageEventObject(
        {
          action: event.Action ?? event.status ?? '',
          ...(id ? { id } : {}),
          ...(event.node?.Name ? { node: event.node.Name } : {}),
          attributes,
        },
        api.cluster.capabilities?.images?.list() ?? [],
      );
    default:
      return 'shared';
  }
}

/** Whether a scoped caller sees an event: its object, and the container a network event names. */
export function seesEvent(api: ApiContext, access: RequestAccess, event: ClusterEvent): boolean {
  const object = eventObject(api, event);
  if (object === undefined) return false;
  if (object !== 'shared' && !access.sees(object)) return false;
  const container = eventActor(event).attributes.container;
  if (event.Type === 'network' && container) {
    const found = api.cluster.container(container);
    return found !== undefined && access.sees(containerObject(found));
  }
  return true;
}

export interface ContainerCounts {
  total: number;
  running: number;
  paused: number;
  stopped: number;
}

export function countContainers(containers: readonly Container[]): ContainerCounts {
  const counts = { total: 0, running: 0, paused: 0, stopped: 0 };
  for (const container of containers) {
    counts.total += 1;
    if (container.state === 'paused') counts.paused += 1;
    else if (container.state === 'running' || container.state === 'restarting') counts.running += 1;
    else counts.stopped += 1;
  }
  return counts;
}

/** The containers a scoped caller sees, by node. */
export function visibleContainers(api: ApiContext, access: RequestAccess): Container[] {
  return visibleItems(access, api.cluster.containers(), containerObject);
}

/** `docker info`'s per-node `└ Containers` rows, counting only what the caller sees. */
export function scopedStatusRows(
  rows: ReadonlyArray<readonly [string, string]>,
  nodes: readonly Node[],
  visible: readonly Container[],
): Array<[string, string]> {
  const byNode = new Map<string, Container[]>();
  for (const container of visible) {
    const list = byNode.get(container.node.name) ?? [];
    list.push(container);
    byNode.set(container.node.name, list);
  }
  const names = new Set(nodes.map((node) => node.name));
  let node: string | undefined;
  return rows.map(([key, value]) => {
    if (key.startsWith(' ') && !key.startsWith('  ') && names.has(key.slice(1))) node = key.slice(1);
    if (key === '  └ Containers' && node !== undefined) {
      const counts = countContainers(byNode.get(node) ?? []);
      return [key, `${counts.total} (${counts.running} Running, ${counts.paused} Paused, ${counts.stopped} Stopped)`];
    }
    return [key, value];
  });
}

type Item = Record<string, unknown>;

const itemsOf = (list: unknown): Item[] => (Array.isArray(list) ? (list as Item[]) : []);

/** The named volumes a df container row mounts. */
const mountedVolumes = (container: Item): string[] =>
  itemsOf(container.Mounts)
    .filter((mount) => mount.Type === 'volume' && typeof mount.Name === 'string')
    .map((mount) => mount.Name as string);

/**
 * One engine's `system df` with only the images, containers and volumes the caller sees, and the counts
 * that name containers (an image's `Containers`, a volume's `UsageData.RefCount`) counting only
 * those: an image only another team's containers use reads as one nobody uses. Sizes stay whole
 * (the documented limits). Per engine, before the answers are merged: an image's count is that
 * engine's.
 */
export function scopedDiskUsage(api: ApiContext, access: RequestAccess, answer: Answer): Answer {
  const containers = new Set(visibleContainers(api, access).map((container) => container.id));
  const volumes = new Set(
    (api.cluster.capabilities?.volumes?.list() ?? []).filter((volume) => access.sees(volumeObject(volume))).map((volume) => volume.name),
  );
  const seen = itemsOf(answer.Containers).filter((item) => typeof item.Id === 'string' && containers.has(item.Id));
  // dockerd writes -1 for a count it did not work out: that stays
  const counted = (count: unknown): count is number => typeof count === 'number' && count >= 0;
  const images = itemsOf(answer.Images)
    .filter((image) => access.sees(imageRowObject(image)))
    .map((image) =>
      counted(image.Containers) ? { ...image, Containers: seen.filter((container) => container.ImageID === image.Id).length } : image,
    );
  const seenVolumes = itemsOf(answer.Volumes)
    .filter((item) => typeof item.Name === 'string' && volumes.has(item.Name))
    .map((volume) => {
      const usage = volume.UsageData as Item | null | undefined;
      if (!usage || !counted(usage.RefCount)) return volume;
      const refCount = seen.filter((container) => mountedVolumes(container).includes(volume.Name as string)).length;
      return { ...volume, UsageData: { ...usage, RefCount: refCount } };
    });
  const listed = (list: unknown, scoped: Item[]) => (Array.isArray(list) ? scoped : list);
  return {
    ...answer,
    Images: listed(answer.Images, images),
    Containers: listed(answer.Containers, seen),
    Volumes: listed(answer.Volumes, seenVolumes),
  };
}
