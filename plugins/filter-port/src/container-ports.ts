import type { Container } from '@swarm/plugin-sdk';
import type { JsonObject, PortBinding } from '@swarm/plugin-sdk/docker';

/** A host port a container holds (or asked for: a stopped container keeps its bindings). */
export interface HeldPort {
  readonly hostIp: string;
  readonly hostPort: string;
}

interface ContainerPorts {
  readonly held: readonly HeldPort[];
  /** Container ports (`80/tcp`) it exposes. */
  readonly exposed: readonly string[];
  readonly hostNetwork: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null;
}

function addBindingMap(held: HeldPort[], map: unknown): void {
  if (!isObject(map)) return;
  for (const bindings of Object.values(map)) {
    if (!Array.isArray(bindings)) continue;
    for (const binding of bindings as unknown[]) {
      if (!isObject(binding)) continue;
      const { HostIp, HostPort } = binding as PortBinding;
      if (typeof HostPort === 'string' && HostPort !== '') held.push({ hostIp: HostIp ?? '', hostPort: HostPort });
    }
  }
}

function addSummaryPorts(held: HeldPort[], container: Container): void {
  const ports = container.summary['Ports'];
  if (!Array.isArray(ports)) return;
  for (const port of ports as unknown[]) {
    if (isObject(port) && typeof port['PublicPort'] === 'number') {
      held.push({ hostIp: typeof port['IP'] === 'string' ? port['IP'] : '', hostPort: String(port['PublicPort']) });
    }
  }
}

/**
 * Every host port binding known for a container: the requested ones (create config or the
 * engine's HostConfig, kept while stopped) and the actual ones (NetworkSettings, `ps` ports),
 * which also cover ports the engine picked itself (`-p 80`).
 */
function readPorts(container: Container): ContainerPorts {
  const held: HeldPort[] = [];
  addBindingMap(held, container.config.HostConfig?.PortBindings);
  const inspect = container.inspect;
  if (inspect) {
    addBindingMap(held, inspect.HostConfig?.PortBindings);
    const settings = inspect['NetworkSettings'];
    if (isObject(settings)) addBindingMap(held, settings['Ports']);
  }
  addSummaryPorts(held, container);
  const exposed = [...Object.keys(container.config.ExposedPorts ?? {}), ...Object.keys(inspect?.Config?.ExposedPorts ?? {})];
  const hostNetwork = (inspect?.HostConfig?.NetworkMode ?? container.config.HostConfig?.NetworkMode) === 'host';
  return { held, exposed, hostNetwork };
}

/**
 * How held ports are keyed: a plain decimal port as its number, anything else (a range) as
 * written. Number keys are compared in place, while string keys make every lookup read the
 * key strings it meets in the node's table, scattered over the node's data.
 */
export type PortKey = number | string;

export function portKey(hostPort: string): PortKey {
  const number = Number(hostPort);
  return Number.isInteger(number) && String(number) === hostPort ? number : hostPort;
}

/** What a node's containers hold: host ports (by port, with their IPs) and host-mode exposed ports. */
export interface NodePorts {
  readonly held: ReadonlyMap<PortKey, readonly string[]>;
  readonly hostModeExposed: ReadonlySet<string>;
}

/** The ports a node's containers hold. */
export function portsHeldBy(containers: readonly Container[]): NodePorts {
  const held = new Map<PortKey, string[]>();
  const hostModeExposed = new Set<string>();
  for (const container of containers) {
    const ports = readPorts(container);
    for (const { hostPort, hostIp } of ports.held) {
      const key = portKey(hostPort);
      const ips = held.get(key);
      if (ips) ips.push(hostIp);
      else held.set(key, [hostIp]);
    }
    if (ports.hostNetwork) for (const port of ports.exposed) hostModeExposed.add(port);
  }
  return { held, hostModeExposed };
}
