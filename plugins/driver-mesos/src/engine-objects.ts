import type { Container, Image, Network, Node, Volume } from '@swarm/plugin-sdk';
import type { ContainerConfig, ContainerSummary, ImageSummary, NetworkSummary, VolumeSummary } from '@swarm/plugin-sdk/docker';
import { MesosLabels } from './labels.js';

function stateOf(summary: ContainerSummary): string {
  if (summary.State) return summary.State;
  return /^Up/.test(summary.Status ?? '') ? 'running' : 'exited';
}

/** A task container as the cluster shows it: named after the name given to `docker run`. */
export function taskContainer(summary: ContainerSummary, node: Node): Container {
  const labels = summary.Labels ?? {};
  const engineNames = summary.Names.map((name) => (name.startsWith('/') ? name : `/${name}`));
  const given = labels[MesosLabels.name];
  const names = given && engineNames[0] !== `/${given}` ? [`/${given}`, ...engineNames] : engineNames;
  const config: ContainerConfig = { Image: summary.Image, Labels: labels };
  return {
    id: summary.Id,
    name: (names[0] ?? `/${summary.Id.slice(0, 12)}`).slice(1),
    names,
    image: summary.Image,
    imageId: summary.ImageID ?? '',
    state: stateOf(summary),
    labels,
    config,
    summary: { ...summary, Names: names },
    node,
  };
}

export function engineImage(summary: ImageSummary, node: Node): Image {
  return { id: summary.Id, repoTags: summary.RepoTags ?? [], repoDigests: summary.RepoDigests ?? [], summary, node };
}

export function engineNetwork(summary: NetworkSummary, node: Node): Network {
  return { id: summary.Id, name: summary.Name, scope: summary.Scope ?? 'local', summary, node };
}

export function engineVolume(summary: VolumeSummary, node: Node): Volume {
  return { name: summary.Name, driver: summary.Driver, summary, node };
}

/** `docker ps`-style lookup: full or unique-prefix ID, name, `/name`. */
export function findByIdOrName<T extends { id: string; names?: readonly string[]; name?: string }>(
  items: readonly T[],
  idOrName: string,
): T | undefined {
  if (idOrName === '') return undefined;
  const bare = idOrName.startsWith('/') ? idOrName.slice(1) : idOrName;
  const exact = items.find((item) => item.id === bare || item.name === bare || item.names?.includes(`/${bare}`));
  if (exact) return exact;
  const prefixed = items.filter((item) => item.id.startsWith(bare) || item.id.startsWith(`sha256:${bare}`));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
