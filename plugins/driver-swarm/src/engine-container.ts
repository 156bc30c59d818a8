import {
  SwarmLabels,
  type Container,
  type ContainerConfig,
  type ContainerInspect,
  type ContainerSummary,
  type Node,
} from '@swarm/plugin-sdk';

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

/** The create-time config (Config + HostConfig) rebuilt from an inspect, with CPU shares as CPUs. */
export function configFromInspect(inspect: ContainerInspect, engineCpus: number): ContainerConfig {
  const base = inspect.Config ?? { Image: inspect.Image };
  const hostConfig = inspect.HostConfig ?? {};
  return { ...base, HostConfig: { ...hostConfig, CpuShares: sharesToCpus(hostConfig.CpuShares, engineCpus) } };
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
  readonly engineCpuShares: number | undefined;
}

const DETAILS = Symbol('inspect details');

function isDetails(value: ContainerInspect | InspectDetails): value is InspectDetails {
  return DETAILS in value;
}

function detailsOf(inspect: ContainerInspect): InspectDetails {
  const settings = inspect['NetworkSettings'] as { Ports?: unknown } | null | undefined;
  return {
    [DETAILS]: true,
    name: inspect.Name,
    image: inspect.Image,
    created: inspect['Created'],
    path: inspect['Path'],
    args: inspect['Args'],
    state: inspect.State,
    ports: settings?.Ports ?? {},
    mounts: inspect['Mounts'] ?? [],
    engineCpuShares: inspect.HostConfig?.CpuShares,
  };
}

/** A container known to an engine: its `docker ps` row plus, once inspected, its configuration. */
export class EngineContainer implements Container {
  readonly id: string;
  readonly name: string;
  readonly names: readonly string[];
  readonly state: string;
  private readonly details: InspectDetails | undefined;

  constructor(
    readonly node: Node,
    readonly summary: ContainerSummary,
    readonly config: ContainerConfig,
    inspect: ContainerInspect | InspectDetails | undefined,
  ) {
    this.id = summary.Id;
    this.names = summary.Names ?? [];
    this.details = inspect === undefined || isDetails(inspect) ? inspect : detailsOf(inspect);
    this.name = this.details ? stripSlash(this.details.name) : stripSlash(this.names.find((name) => name.lastIndexOf('/') === 0) ?? this.names[0] ?? '');
    this.state = typeof summary.State === 'string' && summary.State !== '' ? summary.State : 'created';
  }

  /** The same container with a newer `docker ps` row. */
  withRow(summary: ContainerSummary): EngineContainer {
    return new EngineContainer(this.node, summary, this.config, this.details);
  }

  /** The inspect fields swarm keeps (the engine has the rest): real CPU shares, not CPUs. */
  get inspect(): ContainerInspect | undefined {
    const details = this.details;
    if (!details) return undefined;
    const { HostConfig: hostConfig, ...config } = this.config;
    return {
      Id: this.id,
      Name: details.name,
      Image: details.image,
      Created: details.created,
      Path: details.path,
      Args: details.args,
      State: details.state,
      Config: config as ContainerConfig,
      HostConfig: { ...hostConfig, CpuShares: details.engineCpuShares ?? 0 },
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

/** A container swarm is creating: counted in reservations and name checks until the engine answers. */
export function pendingContainer(node: Node, swarmId: string, name: string | undefined, config: ContainerConfig): EngineContainer {
  const summary: ContainerSummary = {
    Id: `pending-${swarmId}`,
    Names: name ? [`/${name}`] : [],
    Image: config.Image,
    Created: Math.floor(Date.now() / 1000),
    State: 'pending',
    Status: 'Pending',
    Labels: config.Labels ?? {},
  };
  return new EngineContainer(node, summary, config, undefined);
}
