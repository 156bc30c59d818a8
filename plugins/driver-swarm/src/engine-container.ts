import type { Container, Node } from '@swarm/plugin-sdk';
import type { ContainerConfig, ContainerInspect, ContainerSummary, JsonObject } from '@swarm/plugin-sdk/docker';
import { SwarmLabels, requestedCpus } from '@swarm/plugin-sdk/helpers';
import { shareFields, type JsonPool } from './shared-json.js';

/** Real CPU shares on the engine back to a number of CPUs, as Swarm classic reads them. */
export function sharesToCpus(shares: number | undefined, engineCpus: number): number {
  return shares && shares > 0 && engineCpus > 0 ? Math.floor((shares * engineCpus) / 1024) : 0;
}

/** A number of CPUs to the CpuShares the engine gets (Swarm classic's conversion on create). */
export function cpusToShares(cpus: number, engineCpus: number): number {
  return cpus > 0 && engineCpus > 0 ? Math.ceil((cpus * 1024) / engineCpus) : 0;
}

function stripSlash(name: string): string {
  return name.startsWith('/') ? name.slice(1) : name;
}

/**
 * The create-time config (Config + HostConfig) rebuilt from an inspect; its parts are shared with
 * other containers' (frozen).
 */
export function configFromInspect(inspect: ContainerInspect, json: JsonPool): ContainerConfig {
  // Object.assign, not a spread: V8 (Node 20) gives each spread copy of a parsed Config a hidden class of its own
  const config = shareFields(json, Object.assign({}, inspect.Config ?? { Image: inspect.Image }));
  config.HostConfig = json.share(inspect.HostConfig ?? {});
  return config;
}

/**
 * What swarm keeps of an inspect besides the create config: about a third of the parsed answer,
 * which matters at 30,000 containers. `EngineContainer.inspect` rebuilds the rest on demand.
 */
interface InspectDetails {
  readonly [DETAILS]: true;
  readonly name: string;
  readonly image: string;
  readonly created: unknown;
  readonly path: unknown;
  readonly args: unknown;
  readonly state: ContainerInspect['State'];
  readonly ports: unknown;
  readonly mounts: unknown;
}

const DETAILS = Symbol('inspect details');

function isDetails(value: ContainerInspect | InspectDetails): value is InspectDetails {
  return DETAILS in value;
}

function detailsOf(inspect: ContainerInspect, json: JsonPool): InspectDetails {
  const settings = inspect['NetworkSettings'] as { Ports?: unknown } | null | undefined;
  return {
    [DETAILS]: true,
    name: json.share(inspect.Name),
    image: json.share(inspect.Image),
    created: json.share(inspect['Created']),
    path: json.share(inspect['Path']),
    args: json.share(inspect['Args']),
    state: inspect.State && shareFields(json, inspect.State),
    ports: json.share(settings?.Ports ?? {}),
    mounts: json.share(inspect['Mounts'] ?? []),
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each network endpoint (IP, MAC, endpoint ID) is the container's own: only its fields are shared. */
function sharedSettings(settings: JsonObject, json: JsonPool): JsonObject {
  return shareFields(json, settings, (key, networks) =>
    key === 'Networks' && isObject(networks)
      ? shareFields(json, networks, (_name, endpoint) => (isObject(endpoint) ? shareFields(json, endpoint) : json.share(endpoint)))
      : json.share(networks),
  );
}

/** A `docker ps` row whose parts are shared with other containers' rows and configs. */
function sharedRow(row: ContainerSummary, json: JsonPool): ContainerSummary {
  return shareFields(json, row, (key, value) => {
    if (key === 'Names' && Array.isArray(value)) return value.map((name) => json.share(name));
    if (key === 'NetworkSettings' && isObject(value)) return sharedSettings(value, json);
    return json.share(value);
  });
}

export interface EngineContainerDeps {
  readonly node: Node;
  /** The cluster's pool the container's parts are shared through. */
  readonly json: JsonPool;
  readonly summary: ContainerSummary;
  readonly config: ContainerConfig;
  readonly inspect: ContainerInspect | InspectDetails | undefined;
  readonly reservedCpus: number;
}

/** A container known to an engine: its `docker ps` row plus, once inspected, its configuration. */
export class EngineContainer implements Container {
  readonly node: Node;
  readonly config: ContainerConfig;
  readonly reservedCpus: number;

  readonly id: string;
  readonly name: string;
  readonly names: readonly string[];
  readonly state: string;
  private readonly details: InspectDetails | undefined;
  private readonly json: JsonPool;

  readonly summary: ContainerSummary;

  /**
   * `reservedCpus`: CPUs the container holds on its node. A created container's are read back from
   * its engine's CpuShares (Swarm classic's conversion); a pending one's are what its create asks.
   */
  constructor({ node, json, summary, config, inspect, reservedCpus }: EngineContainerDeps) {
    this.node = node;
    this.json = json;
    this.config = config;
    this.reservedCpus = reservedCpus;
    this.summary = sharedRow(summary, json);
    this.id = this.summary.Id;
    this.names = this.summary.Names ?? [];
    this.details = inspect === undefined || isDetails(inspect) ? inspect : detailsOf(inspect, json);
    this.name = this.details
      ? stripSlash(this.details.name)
      : stripSlash(this.names.find((name) => name.lastIndexOf('/') === 0) ?? this.names[0] ?? '');
    this.state = typeof this.summary.State === 'string' && this.summary.State !== '' ? this.summary.State : 'created';
  }

  /** The same container with a newer `docker ps` row. */
  withRow(summary: ContainerSummary): EngineContainer {
    return new EngineContainer({
      node: this.node,
      json: this.json,
      summary,
      config: this.config,
      inspect: this.details,
      reservedCpus: this.reservedCpus,
    });
  }

  /**
   * A newer STATUS text of the same row (`Up 2 minutes`): in place, as nothing indexes, counts or
   * schedules on it; a new container per minute of age would re-index every container each minute.
   */
  takeStatus(status: string | undefined): void {
    if (this.summary.Status !== status) this.summary.Status = status === undefined ? status : this.json.share(status);
  }

  /** The inspect fields swarm keeps (the engine has the rest). */
  get inspect(): ContainerInspect | undefined {
    const details = this.details;
    if (!details) return undefined;
    const { HostConfig: hostConfig = {}, ...config } = this.config;
    return {
      Id: this.id,
      Name: details.name,
      Image: details.image,
      Created: details.created,
      Path: details.path,
      Args: details.args,
      State: details.state,
      Config: config as ContainerConfig,
      HostConfig: hostConfig,
      NetworkSettings: { Ports: details.ports },
      Mounts: details.mounts,
    };
  }

  get image(): string {
    return this.summary.Image;
  }

  get imageId(): string {
    return this.summary.ImageID ?? '';
  }

  get labels(): Readonly<Record<string, string>> {
    return this.summary.Labels ?? this.config.Labels ?? {};
  }

  get swarmId(): string | undefined {
    return this.labels[SwarmLabels.id];
  }
}

/** A container as its engine describes it (`docker ps` row and inspect), on an engine with `engineCpus` CPUs. */
export function inspectedContainer(
  node: Node & { readonly json: JsonPool },
  summary: ContainerSummary,
  inspect: ContainerInspect,
  engineCpus: number,
): EngineContainer {
  return new EngineContainer({
    node,
    json: node.json,
    summary,
    config: configFromInspect(inspect, node.json),
    inspect,
    reservedCpus: sharesToCpus(inspect.HostConfig?.CpuShares, engineCpus),
  });
}

/** A container swarm is creating: counted in reservations and name checks until the engine answers. */
export function pendingContainer(
  node: Node & { readonly json: JsonPool },
  swarmId: string,
  name: string | undefined,
  config: ContainerConfig,
): EngineContainer {
  const summary: ContainerSummary = {
    Id: `pending-${swarmId}`,
    Names: name ? [`/${name}`] : [],
    Image: config.Image,
    Created: Math.floor(Date.now() / 1000),
    State: 'pending',
    Status: 'Pending',
    Labels: config.Labels ?? {},
  };
  return new EngineContainer({ node, json: node.json, summary, config, inspect: undefined, reservedCpus: requestedCpus(config) });
}
