/*
 * What the server sends the page, as JSON. Type-only: the page's bundle imports these types too,
 * so both sides agree on one shape.
 */
import type { NodeStatus, PlacementExplanation } from '@swarm/plugin-sdk';
import type { ContainerPlacement, DiscoveryStatus, ManagerMetrics, PluginStatus, ReplicationStatus } from '@swarm/plugin-sdk/web';

/** A container as a card shows it. */
export interface WireContainer {
  /** The short ID (12 characters, as `docker ps` shows it). */
  readonly id: string;
  readonly name: string;
  readonly image: string;
  /** running, exited, created, paused, restarting, dead, pending, ... */
  readonly state: string;
  /** Published ports as `docker ps` prints them (`127.0.0.2:8080->80/tcp`); left out when none. */
  readonly ports?: readonly string[];
}

/** A node as its column shows it. */
export interface WireNode {
  /** Stable for the life of the node object in the manager (drivers may replace a node by a new one). */
  readonly key: string;
  readonly id: string;
  readonly name: string;
  readonly addr: string;
  readonly status: NodeStatus;
  /** Why it is not healthy (the last error talking to it). */
  readonly error?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly cpus: { readonly used: number; readonly total: number };
  readonly memory: { readonly used: number; readonly total: number };
  /** The `containerslots` label, when the node has one. */
  readonly slots?: number;
  readonly containers: readonly WireContainer[];
}

/** What stays the same for the life of the manager. */
export interface WireCluster {
  readonly version: string;
  readonly apiVersion: string;
  readonly driver: string;
  readonly strategy: string;
  readonly filters: readonly string[];
  /** False when the config lets the page act on containers through the Docker API (`ui: { readOnly: false }`). */
  readonly readOnly: boolean;
}

/**
 * `event: viewer`: who is watching, sent once per connection before the snapshot when the
 * deployment has access control (never without it, so the page then shows no identity).
 */
export interface WireViewer {
  readonly user: string;
  /** How they were authenticated: `TLS`, `token`, or empty for anonymous. */
  readonly method: string;
  readonly groups: readonly string[];
  /** What the authorizers say they may do, in words (`edit on team a`). */
  readonly roles: readonly string[];
  /** True when they see only their scope: the map, details and activity leave the rest out. */
  readonly scoped: boolean;
}

/** `event: snapshot`: the whole cluster (as far as the viewer may see it), on connection and after a resync. */
export interface SnapshotMessage {
  readonly cluster: WireCluster;
  readonly nodes: readonly WireNode[];
}

/** `event: nodes`: nodes that changed (whole), and keys of nodes gone. */
export interface NodesMessage {
  readonly changed: readonly WireNode[];
  readonly removed: readonly string[];
}

/** One line of the activity list (`event: activity` carries a batch). */
export interface ActivityItem {
  /** Milliseconds since the epoch. */
  readonly time: number;
  /** container, image, network, volume, engine, ... */
  readonly type: string;
  readonly action: string;
  readonly node?: string;
  /** The container's (or image's) name when the event has one. */
  readonly name?: string;
  readonly id?: string;
}

/** GET api/status */
export interface StatusAnswer {
  readonly plugins: readonly PluginStatus[];
  readonly discovery: DiscoveryStatus;
  readonly replication: ReplicationStatus;
  readonly metrics: ManagerMetrics;
  /** The driver's cluster-wide `docker info` rows. */
  readonly clusterRows: ReadonlyArray<readonly [string, string]>;
}

/** POST api/explain, body `{ "args": [...] }` (docker run options) or `{ "container": "<id>" }`. */
export interface ExplainAnswer {
  /** Exactly what `swarm schedule --explain` prints. */
  readonly text: string;
  readonly explanation: PlacementExplanation;
  /** The create config the arguments became (or the container's own). */
  readonly image: string;
}

/** GET api/containers/:id */
export interface ContainerDetails {
  readonly container: WireContainer;
  readonly node: { readonly name: string; readonly addr: string };
  /** The engine's status text (`Up 2 minutes`, `Exited (0) 3 seconds ago`). */
  readonly status: string;
  /** Seconds since the epoch, from the engine. */
  readonly created?: number;
  readonly command?: string;
  readonly restartPolicy?: string;
  readonly memory?: number;
  readonly cpus?: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly placement: ContainerPlacement;
}
