import type { ContainerConfig, ContainerInspect, ContainerSummary, ImageSummary, NetworkSummary, VolumeSummary } from './types/docker.js';

export type NodeStatus = 'pending' | 'healthy' | 'unhealthy' | 'disconnected';

/** How to reach the Docker engine behind a node, for calls the API front proxies directly. */
export interface EngineEndpoint {
  protocol: 'http' | 'https';
  host: string;
  port: number;
  /** PEM material when the engine is dialled over TLS. */
  tls?: {
    ca?: string | Buffer;
    cert?: string | Buffer;
    key?: string | Buffer;
    /** False when the engine's certificate is not verified (`--tls` without `--tlsverify`); default true. */
    rejectUnauthorized?: boolean;
  };
  /** Unix socket path, instead of host/port. */
  socketPath?: string;
}

/**
 * A container as the cluster sees it. `config` is the create-time configuration (Config with
 * HostConfig inside) used by filters and reservations; `summary` and `inspect` are the engine's
 * own answers, passed through to clients. All of it is read-only, nested parts included: drivers
 * share equal parts between containers to save memory at scale (driver-swarm freezes them), so
 * copy before changing anything.
 */
export interface Container {
  readonly id: string;
  /** The name without the leading slash. */
  readonly name: string;
  readonly names: readonly string[];
  readonly image: string;
  readonly imageId: string;
  /** created, running, paused, restarting, removing, exited, dead; or `pending` while swarm creates it. */
  readonly state: string;
  readonly labels: Readonly<Record<string, string>>;
  /**
   * CPUs reserved for this container: what its create asked for (Swarm classic reads a create's
   * `CpuShares` as a number of CPUs), counted in its node's `usedCpus()`. 0 or absent: none.
   * `config.HostConfig.CpuShares` holds the engine's own shares.
   */
  readonly reservedCpus?: number;
  readonly config: ContainerConfig;
  readonly summary: ContainerSummary;
  /**
   * What the driver keeps of the engine's inspect (drivers may trim it to save memory at scale:
   * driver-swarm keeps Id, Name, Image, Created, Path, Args, State, Config, HostConfig,
   * NetworkSettings.Ports and Mounts). Ask the engine for the full answer.
   */
  readonly inspect?: ContainerInspect;
  readonly node: Node;
}

export interface Image {
  readonly id: string;
  readonly repoTags: readonly string[];
  readonly repoDigests: readonly string[];
  readonly summary: ImageSummary;
  readonly node: Node;
}

export interface Volume {
  readonly name: string;
  readonly driver: string;
  readonly summary: VolumeSummary;
  readonly node: Node;
}

export interface Network {
  readonly id: string;
  readonly name: string;
  readonly scope: string;
  readonly summary: NetworkSummary;
  readonly node: Node;
}

/**
 * A place where containers run: a Docker engine (swarm driver) or a Mesos agent's offers (mesos
 * driver). Everything here answers from memory: the scheduler calls it thousands of times per
 * decision, so no method may do I/O.
 */
export interface Node {
  readonly id: string;
  readonly name: string;
  /** The address shown to users in `docker ps` port columns. */
  readonly ip: string;
  /** host:port the manager dials. */
  readonly addr: string;

  images(): readonly Image[];
  image(idOrName: string): Image | undefined;
  /** All containers, stopped and pending included. */
  containers(): readonly Container[];
  container(idOrName: string): Container | undefined;

  totalCpus(): number;
  /** CPUs reserved by containers here (pending ones included). */
  usedCpus(): number;
  /** Bytes. */
  totalMemory(): number;
  usedMemory(): number;

  /** Engine labels plus the standard ones (storagedriver, kernelversion, operatingsystem, ostype). */
  labels(): Readonly<Record<string, string>>;

  status(): NodeStatus;
  isHealthy(): boolean;
  /** 0..100, used by strategies to prefer nodes that have been failing less. */
  healthIndicator(): number;
  /** The last error talking to the node, if any. */
  lastError(): string | undefined;

  endpoint(): EngineEndpoint | undefined;

  /**
   * Everything above as of now, in one immutable object: the one way the host reads a node. A
   * node hands out the same snapshot until something in it changes, then a new one with a higher
   * version (`SnapshotVersions` from `@swarm/plugin-sdk/helpers` does the bookkeeping). The
   * scheduler's NodeTable, `docker info` rows and filters' derived values are kept exactly as
   * long as the snapshot is the node's current one.
   */
  snapshot(): NodeSnapshot;

  /**
   * Call `listener` whenever `snapshot()` has a new snapshot to hand out; returns the function
   * that stops the calls. The host reads a node's snapshot again only after a call, so at
   * thousands of nodes a decision touches only the nodes that changed: a change without a call is
   * never seen. `SnapshotVersions.watch` does it (its `changed()` calls the listeners).
   */
  watch(listener: () => void): () => void;
}

/**
 * What a node answers, as of one version: read by filters and strategies (through the NodeTable)
 * and by `docker info`. Immutable, nested lists included. Anything derived from it stays
 * true while the node's `snapshot()` returns this same object.
 */
export interface NodeSnapshot {
  readonly node: Node;
  /** Grows with every change to the node; two snapshots of a node with the same version are the same. */
  readonly version: number;
  readonly id: string;
  readonly name: string;
  readonly status: NodeStatus;
  /** What `isHealthy()` answered. */
  readonly healthy: boolean;
  readonly healthIndicator: number;
  readonly totalCpus: number;
  readonly usedCpus: number;
  readonly totalMemory: number;
  readonly usedMemory: number;
  readonly labels: Readonly<Record<string, string>>;
  /** All containers, stopped and pending included. */
  readonly containers: readonly Container[];
  readonly images: readonly Image[];
  readonly lastError: string | undefined;
  /**
   * The Engine API versions the node's engine serves (`GET /version`'s `ApiVersion` and
   * `MinAPIVersion`), once known: the manager serves what all its engines support. Absent for a
   * node without a Docker engine of its own, which is taken to speak the baseline, 1.41.
   */
  readonly apiVersions?: { readonly max: string; readonly min: string };
}
