import type { ContainerConfig, HostConfig, PortBinding } from '../types/docker.js';

/** A container config described the way `docker run` flags describe it. */
export interface RunSpec {
  readonly image?: string;
  readonly env?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  /** `-p` values: `80`, `8080:80`, `127.0.0.1:8080:80/udp`. */
  readonly publish?: readonly string[];
  /** `--expose` values: `80`, `53/udp`. */
  readonly expose?: readonly string[];
  /** `--net`: `bridge`, `host`, `container:name`, ... */
  readonly network?: string;
  readonly links?: readonly string[];
  readonly volumesFrom?: readonly string[];
  /** CPUs reserved (Swarm classic reads CpuShares as CPUs). */
  readonly cpus?: number;
  /** Bytes reserved. */
  readonly memory?: number;
  /** Sent as `-e constraint:...` entries, as the docker CLI does. */
  readonly constraints?: readonly string[];
  readonly affinities?: readonly string[];
  readonly whitelists?: readonly string[];
}

function portKey(port: string): string {
  return port.includes('/') ? port : `${port}/tcp`;
}

/** `[ip:]hostPort:containerPort[/proto]` or `containerPort[/proto]`. */
function parsePublish(value: string): { key: string; binding: PortBinding } {
  const parts = value.split(':');
  const containerPort = parts.pop() ?? '';
  const hostPort = parts.pop() ?? '';
  const hostIp = parts.join(':');
  return { key: portKey(containerPort), binding: { HostIp: hostIp, HostPort: hostPort } };
}

/** Build the `POST /containers/create` body the docker CLI would send for these flags. */
export function runConfig(spec: RunSpec = {}): ContainerConfig {
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, PortBinding[]> = {};
  for (const port of spec.expose ?? []) exposed[portKey(port)] = {};
  for (const value of spec.publish ?? []) {
    const { key, binding } = parsePublish(value);
    exposed[key] = {};
    (bindings[key] ??= []).push(binding);
  }
  const hostConfig: HostConfig = {
    NetworkMode: spec.network ?? 'default',
    PortBindings: bindings,
    Links: [...(spec.links ?? [])],
    VolumesFrom: [...(spec.volumesFrom ?? [])],
    CpuShares: spec.cpus ?? 0,
    Memory: spec.memory ?? 0,
  };
  const env = [
    ...(spec.env ?? []),
    ...(spec.constraints ?? []).map((entry) => `constraint:${entry}`),
    ...(spec.affinities ?? []).map((entry) => `affinity:${entry}`),
    ...(spec.whitelists ?? []).map((entry) => `whitelist:${entry}`),
  ];
  return {
    Image: spec.image ?? 'busybox:latest',
    Env: env,
    Labels: { ...(spec.labels ?? {}) },
    ExposedPorts: exposed,
    HostConfig: hostConfig,
  };
}

/** A ContainerConfig as is, or one built from run flags. */
export function toContainerConfig(config: ContainerConfig | RunSpec): ContainerConfig {
  return 'Image' in config ? config : runConfig(config);
}
