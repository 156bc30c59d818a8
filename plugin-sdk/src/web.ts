import type { ClusterEvent } from './cluster.js';
import type { Logger } from './logger.js';
import type { Container, Node, NodeStatus } from './node.js';
import type { PlacementExplanation } from './scheduler.js';
import type { ContainerConfig } from './types/docker.js';

/*
 * `@swarm/plugin-sdk/web`: the types of web extensions. A plugin serves HTTP routes under `/swarm/<name>/` on the
 * manager's own API listeners, so they get the same TLS (with `--tlsverify` a browser needs the
 * client certificate, like the docker CLI) and the same request handling as the Docker API
 * (header and body limits, path checks, logs, `swarm_api_requests_total`). What they may read of
 * the manager is a `ManagerView`: read-only, and the same for every cluster driver.
 *
 * Register with `ctx.web(name, provider)`; a deployment mounts the extensions its config names
 * (`web: { <name>: true | { ...options } }`; `ui: true` or `--ui` mounts the built-in `ui`).
 */

/** Web extensions to mount, by name, with each one's settings (`ui: true` gives `{ ui: {} }`). */
export type WebSettings = Readonly<Record<string, Readonly<Record<string, string | number | boolean>>>>;

export type WebMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

/** One request to a web extension's route. */
export interface WebRequest {
  readonly method: WebMethod;
  /** The path below the extension's prefix, starting with `/` (`/api/nodes` for `/swarm/ui/api/nodes`). */
  readonly path: string;
  /** Route parameters (`:id`), and `*` for the rest of a wildcard path. */
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: URLSearchParams;
  /** Lower-case header names, as Node.js gives them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Aborted when the client goes away: stop streaming and let go of subscriptions. */
  readonly signal: AbortSignal;
  /**
   * Who is asking, when the deployment has access control (plugin API 2.1): show them only what
   * `viewer.sees` lets through. Absent without access control, where everyone sees everything.
   */
  readonly viewer?: WebViewer;
  /**
   * The body parsed as JSON, read up to the API's body limit (413 above it, 400 when it is not
   * JSON). `undefined` for an empty body.
   */
  json(): Promise<unknown>;
}

/** The caller of a web request (plugin API 2.1). */
export interface WebViewer {
  readonly user: string;
  readonly groups: readonly string[];
  /** How they were authenticated: `TLS`, `token`, or empty for anonymous. */
  readonly method: string;
  /** What the authorizers say this caller may do, in words (`edit on team a`). */
  readonly roles: readonly string[];
  /** False when the caller sees everything. */
  readonly scoped: boolean;
  /** Whether the caller may see a container: the page shows only those, and events about them. */
  sees(container: Container): boolean;
  /**
   * A dry run of the scheduler as this caller's own `/_swarm/v1/explain` answers it: a container
   * the config names that they may not see is Not Found (a SwarmError), affinities to containers
   * and container labels are judged among the containers they see, and their node limits apply.
   * Explain for a viewer with this, never with `ManagerView.explain`, which judges against every
   * container and would tell where another team's run. `dryRun`, where the host has it, goes
   * further.
   */
  explain(config: ContainerConfig): ExplainedPlacement;
  /**
   * Plugin API 2.2: the caller's own `/_swarm/v1/explain`, the whole pipeline a `docker run` goes
   * through: the authorizers asked about `container.create` with the config, the admission
   * controllers, then the scheduler, stopping before the engine. A refusal before scheduling is
   * the explanation's `refused` (stage, code, status) with the create's text in `error`. Absent on
   * a 2.1 host.
   */
  dryRun?(config: ContainerConfig): Promise<ExplainedPlacement>;
}

/** Options of a streamed answer. */
export interface WebStreamOptions {
  /** Compress with gzip when the client accepts it, flushing after every write (server-sent events stay live). */
  readonly compress?: boolean;
}

/** A long answer written piece by piece (server-sent events, a large list). */
export interface WebStream {
  /** False when the client is not keeping up: wait for `drained()` before writing much more. */
  write(chunk: string | Uint8Array): boolean;
  /** Resolves when what was written has been taken by the client, or the client left. */
  drained(): Promise<void>;
  end(): void;
}

/** How a route answers. Exactly one of `send`, `json` or `stream` per request. */
export interface WebResponse {
  send(status: number, body: string | Uint8Array, headers?: Readonly<Record<string, string>>): void;
  json(status: number, value: unknown, headers?: Readonly<Record<string, string>>): void;
  stream(status: number, headers: Readonly<Record<string, string>>, options?: WebStreamOptions): WebStream;
}

/**
 * One route of a web extension. Errors thrown (or rejected) reach the client as the Docker API
 * answers them: `{"message": ...}` with the status of a `SwarmError` (400 for INVALID_ARGUMENT,
 * 404 for NOT_FOUND, ...), 500 for anything else.
 */
export interface WebRoute {
  readonly method: WebMethod | readonly WebMethod[];
  /**
   * The path below the prefix, starting with `/`: `/`, `/api/nodes`, `/api/containers/:id`,
   * `/assets/*`. A request for the bare prefix (`/swarm/ui`) is redirected to `/swarm/ui/`.
   */
  readonly path: string;
  handle(request: WebRequest, response: WebResponse): void | Promise<void>;
}

/** What the host hands a web extension when it mounts it on an API server. */
export interface WebHost {
  /** `/swarm/<name>`, without a trailing slash: prefix every link the extension renders with it. */
  readonly prefix: string;
  /** The extension's settings from the config (`web.<name>`, `{}` for `true`). */
  readonly options: Readonly<Record<string, string | number | boolean>>;
  readonly view: ManagerView;
  readonly logger: Logger;
}

/** A plugin's HTTP surface, registered with `ctx.web(name, provider)`. */
export interface WebExtension {
  /** Called once per API server before it listens: the routes to serve under `host.prefix`. */
  mount(host: WebHost): readonly WebRoute[] | Promise<readonly WebRoute[]>;
  /** Called when the API server closes: end open streams, stop timers. */
  unmount?(): void | Promise<void>;
}

/** A placement explained, and the text `swarm schedule --explain` prints for it. */
export interface ExplainedPlacement {
  readonly explanation: PlacementExplanation;
  readonly text: string;
}

/** One placement the scheduler made (a create, or a reschedule after a node failure). */
export interface PlacementRecord {
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** The node chosen. */
  readonly node: string;
  readonly strategy: string;
  /** The best candidates as the strategy ranked them, chosen first (at most a few). */
  readonly ranked: readonly { readonly node: string; readonly score: number }[];
  /** How many nodes passed every filter. */
  readonly feasible: number;
  /** How many nodes were considered. */
  readonly considered: number;
}

/** Why a container is where it is, as far as this manager knows. */
export interface ContainerPlacement {
  /** `com.docker.swarm.reschedule-policies`: what happens when its node fails. */
  readonly reschedulePolicy: string;
  readonly constraints: readonly string[];
  readonly affinities: readonly string[];
  /**
   * Placements this manager made for the container's swarm ID (or name), oldest first; more than
   * one means it was rescheduled or re-created. Empty for containers placed before the manager
   * started or by another manager; the history is bounded.
   */
  readonly history: readonly PlacementRecord[];
}

/** A loaded plugin as `swarm plugins` lists it. */
export interface PluginStatus {
  readonly name: string;
  readonly version: string;
  /** The plugin API range it declares (`^2.0.0`). */
  readonly apiRange: string;
  /** The npm package (or file) it came from. */
  readonly packageName: string;
  readonly builtin: boolean;
  /** What it registered: `filter health`, `strategy spread`, `web extension ui`. */
  readonly provides: readonly string[];
}

/** How the deployment finds its nodes. */
export interface DiscoveryStatus {
  /** The discovery URI with any credentials replaced by `***`. */
  readonly uri: string;
  readonly scheme: string;
  /**
   * `ok`: entries arrived and the last attempt succeeded; `failing`: the backend reports errors
   * and retries; `waiting`: nothing heard yet; `driver`: the driver reads the URI itself (Mesos).
   */
  readonly state: 'ok' | 'failing' | 'waiting' | 'driver';
  /** Entries in the last set the backend delivered. */
  readonly entries?: number;
  /** Milliseconds since the epoch. */
  readonly updatedAt?: number;
  readonly lastError?: string;
  readonly lastErrorAt?: number;
}

/** This manager's part in a replicated deployment. */
export interface ReplicationStatus {
  readonly enabled: boolean;
  readonly role: 'primary' | 'replica';
  /** The primary's advertise address (this manager's when it is primary); undefined while unknown. */
  readonly primary?: string;
  readonly advertise?: string;
}

/** The figures most operators look at; counters are totals since the manager started. */
export interface ManagerMetrics {
  readonly uptimeSeconds: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly nodes: Readonly<Record<NodeStatus, number>>;
  readonly containers: { readonly total: number; readonly running: number };
  /** Requests answered by the API listeners (web extensions' included). */
  readonly apiRequests: number;
  /** Answers with a 5xx status. */
  readonly apiErrors: number;
  /** Placements asked through the API (container creates, builds). */
  readonly placements: { readonly scheduled: number; readonly failed: number };
  /** Cluster events seen. */
  readonly events: number;
}

/**
 * The manager as a web extension may read it. Nodes and containers are the driver's live objects:
 * read them, never change them (see `Container`), and read them when asked rather than copying
 * them all: at thousands of nodes a full copy per second costs more than the rest of the manager.
 */
export interface ManagerView {
  /** swarm's version. */
  readonly version: string;
  /** The plugin API version of this host (`2.0.0`). */
  readonly apiVersion: string;
  /** The cluster driver's name (`swarm`, `mesos`, ...). */
  readonly driver: string;
  readonly strategy: string;
  readonly filters: readonly string[];

  nodes(): readonly Node[];
  containers(): readonly Container[];
  /** Cluster events as `docker events` streams them (with `node`). Returns the unsubscribe. */
  subscribe(listener: (event: ClusterEvent) => void): () => void;
  /** The driver's `docker info` rows that are about the cluster, not one node (`Strategy`, `Mesos Master`, ...). */
  clusterRows(): Array<[string, string]>;

  /**
   * The create config `swarm schedule` builds from `docker run` options
   * (`['-m', '1g', '-e', 'constraint:zone==a', '-p', '80:80', 'nginx']`). Throws INVALID_ARGUMENT
   * with the CLI's message for bad options.
   */
  runConfig(args: readonly string[]): ContainerConfig;
  /** A dry run of the scheduler, and the text `swarm schedule --explain` prints for it. */
  explain(config: ContainerConfig): ExplainedPlacement;
  placement(container: Container): ContainerPlacement;

  plugins(): readonly PluginStatus[];
  discovery(): DiscoveryStatus;
  replication(): ReplicationStatus;
  metrics(): ManagerMetrics;
}
