import type { Container, Image, Node, NodeSnapshot } from '@swarm/plugin-sdk';

/** A container as an isolated plugin sees it: its data, without the node it points back to. */
export type WireContainer = Omit<Container, 'node'>;
export type WireImage = Omit<Image, 'node'>;

/** What a worker needs of a node to answer a filter's or strategy's questions about it: its snapshot, as data. */
export interface WireNode extends Omit<NodeSnapshot, 'node' | 'containers' | 'images'> {
  readonly ip: string;
  readonly addr: string;
  readonly containers: readonly WireContainer[];
  readonly images: readonly WireImage[];
}

function wireContainer(container: Container): WireContainer {
  const { id, name, names, image, imageId, state, labels, reservedCpus, config, summary, inspect } = container;
  return { id, name, names, image, imageId, state, labels, reservedCpus, config, summary, inspect };
}

export function toWire(node: Node, snapshot: NodeSnapshot = node.snapshot()): WireNode {
  return {
    version: snapshot.version,
    id: snapshot.id,
    name: snapshot.name,
    ip: node.ip,
    addr: node.addr,
    status: snapshot.status,
    healthy: snapshot.healthy,
    healthIndicator: snapshot.healthIndicator,
    totalCpus: snapshot.totalCpus,
    usedCpus: snapshot.usedCpus,
    totalMemory: snapshot.totalMemory,
    usedMemory: snapshot.usedMemory,
    labels: snapshot.labels,
    containers: snapshot.containers.map(wireContainer),
    images: snapshot.images.map(({ id, repoTags, repoDigests, summary }) => ({ id, repoTags, repoDigests, summary })),
    lastError: snapshot.lastError,
    ...(snapshot.apiVersions ? { apiVersions: snapshot.apiVersions } : {}),
  };
}

/** A read-only Node over wire data, in the worker: what filters and strategies read, nothing that talks to an engine. */
export function fromWire(wire: WireNode): Node {
  let containers: Container[] = [];
  let images: Image[] = [];
  const node: Node = {
    id: wire.id,
    name: wire.name,
    ip: wire.ip,
    addr: wire.addr,
    images: () => images,
    image: (idOrName) =>
      images.find((image) => image.id === idOrName || image.id.startsWith(idOrName) || image.repoTags.includes(idOrName)),
    containers: () => containers,
    container: (idOrName) =>
      containers.find((container) => container.id === idOrName || container.id.startsWith(idOrName) || container.name === idOrName),
    totalCpus: () => wire.totalCpus,
    usedCpus: () => wire.usedCpus,
    totalMemory: () => wire.totalMemory,
    usedMemory: () => wire.usedMemory,
    labels: () => wire.labels,
    status: () => wire.status,
    isHealthy: () => wire.healthy,
    healthIndicator: () => wire.healthIndicator,
    lastError: () => wire.lastError,
    endpoint: () => undefined,
    snapshot: () => snapshot,
    watch: () => () => undefined,
  };
  containers = wire.containers.map((container) => ({ ...container, node }));
  images = wire.images.map((image) => ({ ...image, node }));
  const snapshot: NodeSnapshot = {
    node,
    version: wire.version,
    id: wire.id,
    name: wire.name,
    status: wire.status,
    healthy: wire.healthy,
    healthIndicator: wire.healthIndicator,
    totalCpus: wire.totalCpus,
    usedCpus: wire.usedCpus,
    totalMemory: wire.totalMemory,
    usedMemory: wire.usedMemory,
    labels: wire.labels,
    containers,
    images,
    lastError: wire.lastError,
    ...(wire.apiVersions ? { apiVersions: wire.apiVersions } : {}),
  };
  return node;
}
