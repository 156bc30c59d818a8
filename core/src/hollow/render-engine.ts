import { rfc3339Nano } from './clock.js';
import {
  API_VERSION,
  CONTAINER_CONFIG_DEFAULTS,
  INFO_FIXED,
  INFO_PLATFORM,
  INFO_TAIL,
  KERNEL_VERSION,
  OPERATING_SYSTEM,
  REGISTRY_CONFIG,
  SERVER_VERSION,
} from './templates.js';
import type { HollowImage, HollowNetwork, JsonObject } from './model.js';
import type { EngineState } from './state.js';

export function infoAnswer(state: EngineState): JsonObject {
  const identity = state.identity;
  let running = 0;
  let stopped = 0;
  for (const container of state.containers.values()) {
    if (container.state === 'running') running++;
    else if (container.state === 'exited') stopped++;
  }
  return {
    ID: identity.id,
    Containers: state.containers.size,
    ContainersRunning: running,
    ContainersPaused: 0,
    ContainersStopped: stopped,
    Images: state.images.length,
    ...INFO_FIXED,
    NFd: 27 + state.events.listenerCount,
    OomKillDisable: true,
    NGoroutines: 41 + state.events.listenerCount,
    SystemTime: rfc3339Nano(Date.now()),
    ...INFO_PLATFORM,
    NEventsListener: state.events.listenerCount,
    KernelVersion: KERNEL_VERSION,
    OperatingSystem: OPERATING_SYSTEM,
    OSVersion: '12',
    OSType: 'linux',
    Architecture: 'x86_64',
    IndexServerAddress: 'https://index.docker.io/v1/',
    RegistryConfig: REGISTRY_CONFIG,
    NCPU: identity.ncpu,
    MemTotal: identity.memTotal,
    GenericResources: null,
    DockerRootDir: '/var/lib/docker',
    HttpProxy: '',
    HttpsProxy: '',
    NoProxy: '',
    Name: identity.name,
    Labels: [...identity.labels],
    ...INFO_TAIL,
    Warnings: [`WARNING: API is accessible on http://${identity.host}:${identity.port} without encryption.`],
  };
}

export function imageSummary(image: HollowImage): JsonObject {
  return {
    Containers: -1,
    Created: Math.floor(image.createdMs / 1000),
    Id: image.id,
    Labels: null,
    ParentId: '',
    RepoDigests: null,
    RepoTags: image.repoTags,
    SharedSize: -1,
    Size: image.size,
    VirtualSize: image.size,
  };
}

export function imageInspect(image: HollowImage): JsonObject {
  return {
    Id: image.id,
    RepoTags: image.repoTags,
    RepoDigests: [],
    Parent: '',
    Comment: 'Imported from -',
    Created: rfc3339Nano(image.createdMs),
    Container: '',
    ContainerConfig: CONTAINER_CONFIG_DEFAULTS,
    DockerVersion: SERVER_VERSION,
    Author: '',
    Config: CONTAINER_CONFIG_DEFAULTS,
    Architecture: 'amd64',
    Os: 'linux',
    Size: image.size,
    VirtualSize: image.size,
    GraphDriver: { Data: null, Name: 'vfs' },
    RootFS: { Type: 'layers', Layers: [image.layer] },
    Metadata: { LastTagTime: rfc3339Nano(image.createdMs) },
  };
}

export function networkSummary(network: HollowNetwork, hostIp: string, containers: JsonObject = {}): JsonObject {
  const bridge = network.driver === 'bridge';
  return {
    Name: network.name,
    Id: network.id,
    Created: rfc3339Nano(network.createdMs),
    Scope: 'local',
    Driver: network.driver,
    EnableIPv6: false,
    IPAM: {
      Driver: 'default',
      Options: null,
      Config: network.subnet === undefined ? [] : [{ Subnet: network.subnet, Gateway: network.gateway ?? '' }],
    },
    Internal: false,
    Attachable: false,
    Ingress: false,
    ConfigFrom: { Network: '' },
    ConfigOnly: false,
    Containers: containers,
    Options: bridge
      ? {
          'com.docker.network.bridge.default_bridge': 'true',
          'com.docker.network.bridge.enable_icc': 'true',
          'com.docker.network.bridge.enable_ip_masquerade': 'false',
          'com.docker.network.bridge.host_binding_ipv4': hostIp,
          'com.docker.network.bridge.name': 'docker0',
          'com.docker.network.driver.mtu': '1500',
        }
      : {},
    Labels: {},
  };
}

export const API_HEADERS: Readonly<Record<string, string>> = {
  'Api-Version': API_VERSION,
  'Docker-Experimental': 'false',
  Ostype: 'linux',
  Server: `Docker/${SERVER_VERSION} (linux)`,
};
