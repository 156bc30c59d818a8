import type { Readable } from 'node:stream';
import type { Container, Image, Network, Node, Volume } from './node.js';
import type {
  AuthConfig,
  ContainerConfig,
  DockerEvent,
  ImageRemoval,
  NetworkCreateRequest,
  ProgressMessage,
  VolumeCreateRequest,
} from './types/docker.js';
import type { PlacementExplanation } from './scheduler.js';

/** Where an event or a progress line came from. */
export interface EventNode {
  Name: string;
  Id: string;
  Addr: string;
  Ip: string;
}

/** A Docker event with the node it happened on, as Swarm classic streams them. */
export interface ClusterEvent extends DockerEvent {
  node?: EventNode;
}

/** Which part a manager plays in a replicated deployment (a manager without replication is primary). */
export type ClusterRole = 'primary' | 'replica';

export type ProgressListener = (node: Node, message: ProgressMessage) => void;

/** Options of an image transfer (pull, import, load). */
export interface TransferOptions {
  /** Aborting stops the transfer on every engine (the API client went away). */
  signal?: AbortSignal;
}

export interface RemoveContainerOptions {
  force?: boolean;
  volumes?: boolean;
}

/** The cluster-wide `docker info` answer. */
export interface ClusterInfo {
  /** Swarm classic's rows (`Role`, `Strategy`, `Filters`, `Nodes`, ` └ Status`, ...), in order. */
  systemStatus: Array<[string, string]>;
  ncpu: number;
  memTotal: number;
  containers: number;
  containersRunning: number;
  containersPaused: number;
  containersStopped: number;
  images: number;
  /** Driver name for the `Name`/`OperatingSystem` style fields. */
  driver: string;
}

/**
 * A cluster: what the API front talks to. This is the core every driver has: nodes, containers,
 * placement, info and events. What only some drivers can do (images, volumes, networks, builds,
 * engine plugins, renames) is offered through `capabilities`; the API answers Docker's 501, naming
 * the driver, for whatever is absent. Lookups answer from memory; operations that reach engines
 * (or Mesos, or Kubernetes) are async. Names given to lookups may be `node/name` where Swarm
 * classic allows that prefix.
 */
export interface Cluster {
  /** The driver's name ("swarm", "mesos", ...). */
  readonly driverName: string;

  start(): Promise<void>;
  stop(): Promise<void>;

  nodes(): readonly Node[];

  createContainer(config: ContainerConfig, name: string | undefined, auth?: AuthConfig): Promise<Container>;
  startContainer(container: Container): Promise<void>;
  removeContainer(container: Container, options?: RemoveContainerOptions): Promise<void>;
  containers(): readonly Container[];
  /** Full or short ID, swarm id, name, `/name` or `node/name`; ambiguous prefixes find nothing. */
  container(idOrName: string): Container | undefined;

  /** A dry run of the scheduler for this config: every node's verdicts and the ranking. */
  explain(config: ContainerConfig): PlacementExplanation;

  info(): ClusterInfo;

  /** Merged events of all nodes plus the cluster's own (engine_connect, ...). Returns an unsubscribe. */
  subscribe(listener: (event: ClusterEvent) => void): () => void;

  /**
   * Told by the replication controller when this manager becomes primary or replica (a replica
   * must not act on engines by itself, e.g. reschedule containers). Never called without replication.
   */
  setRole?(role: ClusterRole): void;

  /** What this driver can do beyond the core. */
  readonly capabilities?: ClusterCapabilities;
}

/**
 * Optional capabilities of a cluster. Each is offered whole or not at all: a driver leaves out
 * what it cannot do instead of answering "not supported" from a stub, and the API front answers
 * Docker's 501 (`... is not supported with <driver>`) for what is absent.
 */
export interface ClusterCapabilities {
  /** `docker images`, image inspect, history, push and save. */
  readonly images?: ImageInventory;
  /** `docker pull`: offered alone by a driver whose nodes fetch images themselves (Kubernetes). */
  readonly imagePull?: ImagePull;
  /** `docker import`, `load`, `tag` and `rmi`: for drivers whose engines keep an image store clients may change. */
  readonly imageManagement?: ImageManagement;
  /** `docker volume ls` and `inspect`. */
  readonly volumes?: VolumeInventory;
  /** `docker volume create` and `rm`. */
  readonly volumeManagement?: VolumeManagement;
  /** `docker network ls`, `inspect`, `connect` and `disconnect`, and containers joining a node's network. */
  readonly networks?: NetworkInventory;
  /** `docker network create` and `rm`. */
  readonly networkManagement?: NetworkManagement;
  /** `docker build` (the classic builder): where a build runs. */
  readonly builds?: BuildPlacement;
  /** `docker plugin ...`: Docker engine plugins, which live on each node's engine. */
  readonly enginePlugins?: EnginePluginNodes;
  /** `docker rename`. */
  readonly containerRename?: ContainerRename;
  /**
   * `docker restart`, for drivers whose containers cannot just be restarted by their engine (a
   * Mesos task ends for good when its container stops). Without it the API front forwards the
   * restart to the container's engine.
   */
  readonly containerRestart?: ContainerRestart;
}

/** The images on the cluster's nodes (one entry per node's copy). */
export interface ImageInventory {
  list(): readonly Image[];
  /** ID, ID prefix, `name[:tag]` or `name@digest`, on any node. */
  find(idOrName: string): Image | undefined;
}

export interface ImagePull {
  /** Pull on the nodes; each node's progress lines go to `onProgress`. */
  pull(reference: string, auth: AuthConfig | undefined, onProgress: ProgressListener, options?: TransferOptions): Promise<void>;
}

export interface ImageManagement {
  /**
   * `docker import` from a URL (`source`) or from `body` when `source` is `-`. `changes` are the
   * Dockerfile instructions the engine applies to the new image's config, in order (`--change`,
   * the API's `changes`); `message` is its commit message.
   */
  importFrom(
    source: string,
    repository: string,
    tag: string,
    body: Readable | undefined,
    onProgress: ProgressListener,
    options?: TransferOptions & { readonly changes?: readonly string[]; readonly message?: string },
  ): Promise<void>;
  /** `docker load` of an image archive. */
  load(body: Readable, onProgress: ProgressListener, options?: TransferOptions): Promise<void>;
  tag(idOrName: string, repository: string, tag: string, force: boolean): Promise<void>;
  /** Remove from the nodes holding it; the engines' answers, concatenated. */
  remove(idOrName: string, force: boolean): Promise<ImageRemoval[]>;
}

export interface VolumeInventory {
  list(): readonly Volume[];
  /** A name held by one node, or `node/name`. */
  find(name: string): Volume | undefined;
}

export interface VolumeManagement {
  create(request: VolumeCreateRequest): Promise<Volume>;
  remove(name: string, force: boolean): Promise<void>;
}

export interface NetworkInventory {
  list(): readonly Network[];
  /** ID, name held by one node, or `node/name`. */
  find(idOrName: string): Network | undefined;
}

export interface NetworkManagement {
  create(request: NetworkCreateRequest): Promise<Network>;
  remove(network: Network): Promise<void>;
}

export interface BuildPlacement {
  /** The node an image build should run on, chosen by the scheduler for this config. */
  place(config: ContainerConfig): Promise<Node>;
  /**
   * A build finished on `node`: its images are read again, so the new image is placed where it
   * is. Needed for BuildKit builds, which engines before 23.0 announce with no image event.
   */
  built?(node: Node): Promise<void>;
}

export interface EnginePluginNodes {
  /** The nodes whose Docker engines hold engine plugins; the API reaches each through `endpoint()`. */
  nodes(): readonly Node[];
}

export interface ContainerRename {
  rename(container: Container, newName: string): Promise<void>;
}

/** Docker's restart parameters: `t` (seconds to wait before killing) and `signal` (API 1.42). */
export interface RestartOptions {
  readonly timeoutSeconds?: number;
  readonly signal?: string;
}

export interface ContainerRestart {
  restart(container: Container, options: RestartOptions): Promise<void>;
}
