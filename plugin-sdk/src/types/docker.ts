/**
 * The subset of Docker Engine API shapes that swarm reasons about. Every object also keeps the
 * engine's other fields (index signature), so proxying never drops data swarm does not model.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: unknown };

export interface PortBinding {
  HostIp?: string;
  HostPort?: string;
}

export interface HostConfig extends JsonObject {
  Binds?: string[];
  CpuShares?: number;
  Memory?: number;
  NetworkMode?: string;
  PortBindings?: { [containerPort: string]: PortBinding[] | null };
  PublishAllPorts?: boolean;
  Links?: string[];
  VolumesFrom?: string[];
}

/** The body of `POST /containers/create` (Config with an embedded HostConfig). */
export interface ContainerConfig extends JsonObject {
  Image: string;
  Hostname?: string;
  Cmd?: string[] | null;
  Entrypoint?: string[] | string | null;
  Env?: string[] | null;
  Labels?: { [key: string]: string };
  ExposedPorts?: { [port: string]: JsonObject };
  Tty?: boolean;
  OpenStdin?: boolean;
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  HostConfig?: HostConfig;
}

/** One item of `GET /containers/json`. */
export interface ContainerSummary extends JsonObject {
  Id: string;
  Names: string[];
  Image: string;
  ImageID?: string;
  Command?: string;
  Created: number;
  State?: string;
  Status?: string;
  Labels?: { [key: string]: string };
}

/** `GET /containers/{id}/json`. */
export interface ContainerInspect extends JsonObject {
  Id: string;
  Name: string;
  Image: string;
  Config?: ContainerConfig;
  HostConfig?: HostConfig;
  State?: JsonObject;
}

/** One item of `GET /images/json`. */
export interface ImageSummary extends JsonObject {
  Id: string;
  RepoTags?: string[] | null;
  RepoDigests?: string[] | null;
  Created: number;
  Size: number;
  Labels?: { [key: string]: string } | null;
}

export interface VolumeSummary extends JsonObject {
  Name: string;
  Driver: string;
  Mountpoint?: string;
}

export interface NetworkSummary extends JsonObject {
  Id: string;
  Name: string;
  Driver?: string;
  Scope?: string;
}

/** A message on `GET /events`. */
export interface DockerEvent extends JsonObject {
  Type?: string;
  Action?: string;
  status?: string;
  id?: string;
  from?: string;
  time?: number;
  timeNano?: number;
}

/** A JSON progress line as the engine streams it on pull/push/load/build. */
export interface ProgressMessage extends JsonObject {
  status?: string;
  id?: string;
  progress?: string;
  error?: string;
  stream?: string;
}

/** Registry credentials as the client sent them (X-Registry-Auth, decoded). */
export type AuthConfig = JsonObject;

export interface ImageRemoval extends JsonObject {
  Untagged?: string;
  Deleted?: string;
}

export interface VolumeCreateRequest extends JsonObject {
  Name?: string;
  Driver?: string;
  DriverOpts?: { [key: string]: string };
  Labels?: { [key: string]: string };
}

/** IPAM of a network create: the address allocator and the pools it hands out. */
export interface NetworkIpam extends JsonObject {
  /** `default` when absent. */
  Driver?: string;
  Options?: { [key: string]: string };
  Config?: Array<{ Subnet?: string; IPRange?: string; Gateway?: string; AuxiliaryAddresses?: { [key: string]: string } }>;
}

/** `POST /networks/create`'s body (moby's `NetworkCreateRequest`). */
export interface NetworkCreateRequest extends JsonObject {
  Name: string;
  /** `bridge` when absent (on an engine outside swarm mode). */
  Driver?: string;
  Scope?: string;
  EnableIPv4?: boolean;
  EnableIPv6?: boolean;
  IPAM?: NetworkIpam;
  Internal?: boolean;
  Attachable?: boolean;
  Ingress?: boolean;
  ConfigOnly?: boolean;
  ConfigFrom?: { Network?: string };
  /** The driver's options (`parent`, `com.docker.network.bridge.name`). */
  Options?: { [key: string]: string };
  Labels?: { [key: string]: string };
}
