/** JSON values as the engine API receives and sends them. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface PortBinding {
  HostIp?: string;
  HostPort?: string;
}

/** The subset of a create request the hollow engine interprets; everything else is echoed back. */
export type CreateBody = JsonObject;

export type ContainerState = 'created' | 'running' | 'exited';

/**
 * One container. Kept small on purpose (1,000 engines × 30 containers in one process):
 * answers are rendered on demand, and preloaded containers share one `body`.
 */
export interface HollowContainer {
  readonly id: string;
  name: string;
  readonly body: CreateBody;
  readonly image: HollowImage;
  readonly createdMs: number;
  state: ContainerState;
  startedMs: number;
  finishedMs: number;
  exitCode: number;
  pid: number;
  /** Last byte of the bridge address while running (172.17.<engine>.<n>), 0 when stopped. */
  ipHost: number;
  /** Host ports this container holds while running. */
  published: readonly PublishedPort[];
}

export interface PublishedPort {
  readonly privatePort: number;
  readonly proto: string;
  readonly hostIp: string;
  readonly hostPort: number;
}

export interface HollowImage {
  readonly id: string;
  readonly repoTags: string[];
  readonly createdMs: number;
  readonly size: number;
  readonly layer: string;
}

export interface HollowNetwork {
  readonly id: string;
  readonly name: string;
  readonly driver: string;
  readonly createdMs: number;
  readonly subnet?: string;
  readonly gateway?: string;
}

export const asObject = (value: Json | undefined): JsonObject | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;

export const asString = (value: Json | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

export const asStringArray = (value: Json | undefined): string[] | undefined => {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
};

export const labelsOf = (body: CreateBody): Record<string, string> => {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(asObject(body['Labels']) ?? {})) if (typeof value === 'string') labels[key] = value;
  return labels;
};

export const hostConfigOf = (body: CreateBody): JsonObject => asObject(body['HostConfig']) ?? {};

/** `default` (the engine's word for the bridge when nothing is said), `host`, `none` or a network name. */
export const networkModeOf = (body: CreateBody): string => asString(hostConfigOf(body)['NetworkMode']) || 'default';
