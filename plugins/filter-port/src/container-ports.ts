import type { Container, JsonObject, PortBinding } from '@swarm/plugin-sdk';

/** A host port a container holds (or asked for: a stopped container keeps its bindings). */
export interface HeldPort {
  readonly hostIp: string;
  readonly hostPort: string;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null;
}

function* fromBindingMap(map: unknown): Iterable<HeldPort> {
  if (!isObject(map)) return;
  for (const bindings of Object.values(map)) {
    if (!Array.isArray(bindings)) continue;
    for (const binding of bindings as unknown[]) {
      if (!isObject(binding)) continue;
      const { HostIp, HostPort } = binding as PortBinding;
      if (typeof HostPort === 'string' && HostPort !== '') yield { hostIp: HostIp ?? '', hostPort: HostPort };
    }
  }
}

function* fromSummary(container: Container): Iterable<HeldPort> {
  const ports = container.summary['Ports'];
  if (!Array.isArray(ports)) return;
  for (const port of ports as unknown[]) {
    if (isObject(port) && typeof port['PublicPort'] === 'number') {
      yield { hostIp: typeof port['IP'] === 'string' ? port['IP'] : '', hostPort: String(port['PublicPort']) };
    }
  }
}

/**
 * Every host port binding known for a container: the requested ones (create config or the
 * engine's HostConfig, kept while stopped) and the actual ones (NetworkSettings, `ps` ports),
 * which also cover ports the engine picked itself (`-p 80`).
 */
export function* heldPorts(container: Container): Iterable<HeldPort> {
  yield* fromBindingMap(container.config.HostConfig?.PortBindings);
  const inspect = container.inspect;
  if (inspect) {
    yield* fromBindingMap(inspect.HostConfig?.PortBindings);
    const settings = inspect['NetworkSettings'];
    if (isObject(settings)) yield* fromBindingMap(settings['Ports']);
  }
  yield* fromSummary(container);
}

/** Container ports (`80/tcp`) a container exposes, from its create config or the engine's. */
export function exposedPorts(container: Container): string[] {
  return [...Object.keys(container.config.ExposedPorts ?? {}), ...Object.keys(container.inspect?.Config?.ExposedPorts ?? {})];
}

/** Whether a container runs in the host's network namespace. */
export function usesHostNetwork(container: Container): boolean {
  return (container.inspect?.HostConfig?.NetworkMode ?? container.config.HostConfig?.NetworkMode) === 'host';
}
