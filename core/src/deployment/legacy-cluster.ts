import type {
  AuthConfig,
  Cluster,
  ClusterCapabilities,
  Container,
  ContainerConfig,
  Image,
  ImageRemoval,
  Network,
  NetworkCreateRequest,
  Node,
  ProgressListener,
  TransferOptions,
  Volume,
  VolumeCreateRequest,
} from '@swarm/plugin-sdk';
import type { Readable } from 'node:stream';

/**
 * A driver written for plugin API 1.0 or 1.1: every operation was a Cluster method (drivers
 * stubbed what they could not do with NOT_SUPPORTED errors).
 */
interface LegacyCluster extends Cluster {
  images(): readonly Image[];
  image(idOrName: string): Image | undefined;
  pullImage(reference: string, auth: AuthConfig | undefined, onProgress: ProgressListener, options?: TransferOptions): Promise<void>;
  importImage(
    source: string,
    repository: string,
    tag: string,
    body: Readable | undefined,
    onProgress: ProgressListener,
    options?: TransferOptions,
  ): Promise<void>;
  loadImage(body: Readable, onProgress: ProgressListener, options?: TransferOptions): Promise<void>;
  tagImage(idOrName: string, repository: string, tag: string, force: boolean): Promise<void>;
  removeImages(idOrName: string, force: boolean): Promise<ImageRemoval[]>;
  volumes(): readonly Volume[];
  volume(name: string): Volume | undefined;
  createVolume(request: VolumeCreateRequest): Promise<Volume>;
  removeVolume(name: string, force: boolean): Promise<void>;
  networks(): readonly Network[];
  network(idOrName: string): Network | undefined;
  createNetwork(request: NetworkCreateRequest): Promise<Network>;
  removeNetwork(network: Network): Promise<void>;
  placeBuild(config: ContainerConfig): Promise<Node>;
  renameContainer(container: Container, newName: string): Promise<void>;
}

function isLegacy(cluster: Cluster): cluster is LegacyCluster {
  return cluster.capabilities === undefined && typeof (cluster as Partial<LegacyCluster>).pullImage === 'function';
}

/** The 1.x methods as capabilities: a stubbed method still answers its own error, as it did. */
function capabilitiesOf(cluster: LegacyCluster): ClusterCapabilities {
  return {
    images: { list: () => cluster.images(), find: (name) => cluster.image(name) },
    imageManagement: {
      pull: (...args) => cluster.pullImage(...args),
      importFrom: (...args) => cluster.importImage(...args),
      load: (...args) => cluster.loadImage(...args),
      tag: (...args) => cluster.tagImage(...args),
      remove: (...args) => cluster.removeImages(...args),
    },
    volumes: { list: () => cluster.volumes(), find: (name) => cluster.volume(name) },
    volumeManagement: { create: (request) => cluster.createVolume(request), remove: (name, force) => cluster.removeVolume(name, force) },
    networks: { list: () => cluster.networks(), find: (name) => cluster.network(name) },
    networkManagement: { create: (request) => cluster.createNetwork(request), remove: (network) => cluster.removeNetwork(network) },
    builds: { place: (config) => cluster.placeBuild(config) },
    enginePlugins: { nodes: () => cluster.nodes() },
    containerRename: { rename: (container, newName) => cluster.renameContainer(container, newName) },
  };
}

/**
 * The cluster as the API front sees it. Drivers written for plugin API 1.2 and later are used as
 * they are; a 1.0 or 1.1 driver (still accepted by `^1.0.0`) is wrapped so that its methods serve
 * as its capabilities.
 */
export function withCapabilities(cluster: Cluster): Cluster {
  if (!isLegacy(cluster)) return cluster;
  const capabilities = capabilitiesOf(cluster);
  return {
    get driverName() {
      return cluster.driverName;
    },
    start: () => cluster.start(),
    stop: () => cluster.stop(),
    nodes: () => cluster.nodes(),
    createContainer: (config, name, auth) => cluster.createContainer(config, name, auth),
    startContainer: (container) => cluster.startContainer(container),
    removeContainer: (container, options) => cluster.removeContainer(container, options),
    containers: () => cluster.containers(),
    container: (idOrName) => cluster.container(idOrName),
    explain: (config) => cluster.explain(config),
    info: () => cluster.info(),
    subscribe: (listener) => cluster.subscribe(listener),
    ...(cluster.setRole ? { setRole: (role) => cluster.setRole!(role) } : {}),
    capabilities,
  };
}
