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

/** A container known to an engine: its `docker ps` row plus, once inspected, its configuration. */
export class EngineContainer implements Container {
  readonly id: string;
  readonly name: string;
  readonly names: readonly string[];
  readonly state: string;

  constructor(
    readonly node: Node,
    readonly summary: ContainerSummary,
    readonly config: ContainerConfig,
    readonly inspect: ContainerInspect | undefined,
  ) {
    this.id = summary.Id;
    this.names = summary.Names ?? [];
    this.name = inspect ? stripSlash(inspect.Name) : stripSlash(this.names.find((name) => name.lastIndexOf('/') === 0) ?? this.names[0] ?? '');
    this.state = typeof summary.State === 'string' && summary.State !== '' ? summary.State : 'created';
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
