import type { Readable } from 'node:stream';
import type { Container, Image, Network, Node, Volume } from './node.js';
import type { ContainerConfig, DockerEvent, JsonObject, ProgressMessage } from './types/docker.js';
import type { PlacementExplanation } from './scheduler.js';

/** Registry credentials as the client sent them (X-Registry-Auth, decoded). */
export type AuthConfig = JsonObject;

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

export interface ImageRemoval extends JsonObject {
  Untagged?: string;
  Deleted?: string;
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

export interface VolumeCreateRequest extends JsonObject {
  Name?: string;
  Driver?: string;
  DriverOpts?: { [key: string]: string };
  Labels?: { [key: string]: string };
}

export interface NetworkCreateRequest extends JsonObject {
  Name: string;
  Driver?: string;
}

/**
 * A cluster: what the API front talks to. Lookups answer from memory; operations that reach
 * engines (or Mesos) are async. Names given to lookups may be `node/name` where Swarm classic
 * allows that prefix.
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
  renameContainer(container: Container, newName: string): Promise<void>;
  containers(): readonly Container[];
  /** Full or short ID, swarm id, name, `/name` or `node/name`; ambiguous prefixes find nothing. */
  container(idOrName: string): Container | undefined;

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

  /** The node an image build should run on, chosen by the scheduler for this config. */
  placeBuild(config: ContainerConfig): Promise<Node>;
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
}
