import {
  goBody,
  goBool,
  goInt,
  goList,
  goMap,
  goSet,
  goString,
  goStringMap,
  goStrings,
  goStrSlice,
  goStruct,
  goUint,
  type GoType,
} from './go-types.js';

// The request bodies swarm reads or forwards, with the Engine API v1.41 field types (api/types in moby).

const healthcheck = goStruct('container.HealthConfig', {
  Test: goStrings,
  Interval: goInt,
  Timeout: goInt,
  StartPeriod: goInt,
  Retries: goInt,
});

const portBinding = goStruct('nat.PortBinding', { HostIp: goString, HostPort: goString });

const mount = goStruct('mount.Mount', {
  Type: goString,
  Source: goString,
  Target: goString,
  ReadOnly: goBool,
  Consistency: goString,
  BindOptions: goStruct('mount.BindOptions', { Propagation: goString, NonRecursive: goBool }),
  VolumeOptions: goStruct('mount.VolumeOptions', {
    NoCopy: goBool,
    Labels: goStringMap,
    DriverConfig: goStruct('mount.Driver', { Name: goString, Options: goStringMap }),
  }),
  TmpfsOptions: goStruct('mount.TmpfsOptions', { SizeBytes: goInt, Mode: goUint }),
});

const hostConfigFields = {
  Binds: goStrings,
  ContainerIDFile: goString,
  LogConfig: goStruct('container.LogConfig', { Type: goString, Config: goStringMap }),
  NetworkMode: goString,
  PortBindings: goMap('nat.PortMap', goList('[]nat.PortBinding', portBinding)),
  RestartPolicy: goStruct('container.RestartPolicy', { Name: goString, MaximumRetryCount: goInt }),
  AutoRemove: goBool,
  VolumeDriver: goString,
  VolumesFrom: goStrings,
  CapAdd: goStrSlice,
  CapDrop: goStrSlice,
  CgroupnsMode: goString,
  Dns: goStrings,
  DnsOptions: goStrings,
  DnsSearch: goStrings,
  ExtraHosts: goStrings,
  GroupAdd: goStrings,
  IpcMode: goString,
  Cgroup: goString,
  Links: goStrings,
  OomScoreAdj: goInt,
  PidMode: goString,
  Privileged: goBool,
  PublishAllPorts: goBool,
  ReadonlyRootfs: goBool,
  SecurityOpt: goStrings,
  StorageOpt: goStringMap,
  Tmpfs: goStringMap,
  UTSMode: goString,
  UsernsMode: goString,
  ShmSize: goInt,
  Sysctls: goStringMap,
  Runtime: goString,
  Isolation: goString,
  CpuShares: goInt,
  Memory: goInt,
  NanoCpus: goInt,
  CgroupParent: goString,
  BlkioWeight: goUint,
  CpuPeriod: goInt,
  CpuQuota: goInt,
  CpuRealtimePeriod: goInt,
  CpuRealtimeRuntime: goInt,
  CpusetCpus: goString,
  CpusetMems: goString,
  Devices: goList(
    '[]container.DeviceMapping',
    goStruct('container.DeviceMapping', { PathOnHost: goString, PathInContainer: goString, CgroupPermissions: goString }),
  ),
  DeviceCgroupRules: goStrings,
  KernelMemory: goInt,
  KernelMemoryTCP: goInt,
  MemoryReservation: goInt,
  MemorySwap: goInt,
  MemorySwappiness: goInt,
  OomKillDisable: goBool,
  PidsLimit: goInt,
  Ulimits: goList('[]*units.Ulimit', goStruct('units.Ulimit', { Name: goString, Hard: goInt, Soft: goInt })),
  CpuCount: goInt,
  CpuPercent: goInt,
  Mounts: goList('[]mount.Mount', mount),
  MaskedPaths: goStrings,
  ReadonlyPaths: goStrings,
  Init: goBool,
};

const hostConfig = goStruct('container.HostConfig', hostConfigFields);

/** `docker update`'s body (container.UpdateConfig): the resources and restart policy, HostConfig's own fields. */
export const containerUpdateBody = goBody('container.UpdateConfig', hostConfigFields);

const endpointSettings = goStruct('network.EndpointSettings', {
  IPAMConfig: goStruct('network.EndpointIPAMConfig', { IPv4Address: goString, IPv6Address: goString, LinkLocalIPs: goStrings }),
  Links: goStrings,
  Aliases: goStrings,
  NetworkID: goString,
  EndpointID: goString,
  Gateway: goString,
  IPAddress: goString,
  IPPrefixLen: goInt,
  IPv6Gateway: goString,
  GlobalIPv6Address: goString,
  GlobalIPv6PrefixLen: goInt,
  MacAddress: goString,
  DriverOpts: goStringMap,
});

/** POST /containers/create: container.Config with HostConfig and NetworkingConfig. */
export const containerCreateBody = goBody('container.Config', {
  Hostname: goString,
  Domainname: goString,
  User: goString,
  AttachStdin: goBool,
  AttachStdout: goBool,
  AttachStderr: goBool,
  ExposedPorts: goSet,
  Tty: goBool,
  OpenStdin: goBool,
  StdinOnce: goBool,
  Env: goStrings,
  Cmd: goStrSlice,
  Healthcheck: healthcheck,
  ArgsEscaped: goBool,
  Image: goString,
  Volumes: goSet,
  WorkingDir: goString,
  Entrypoint: goStrSlice,
  NetworkDisabled: goBool,
  MacAddress: goString,
  OnBuild: goStrings,
  Labels: goStringMap,
  StopSignal: goString,
  StopTimeout: goInt,
  Shell: goStrSlice,
  HostConfig: hostConfig,
  NetworkingConfig: goStruct('network.NetworkingConfig', {
    EndpointsConfig: goMap('map[string]*network.EndpointSettings', endpointSettings),
  }),
});

/** POST /containers/{id}/exec */
export const execCreateBody = goBody('types.ExecConfig', {
  User: goString,
  Privileged: goBool,
  Tty: goBool,
  AttachStdin: goBool,
  AttachStderr: goBool,
  AttachStdout: goBool,
  Detach: goBool,
  DetachKeys: goString,
  Env: goStrings,
  WorkingDir: goString,
  Cmd: goStrSlice,
});

/** POST /volumes/create */
export const volumeCreateBody = goBody('volume.VolumeCreateBody', {
  Name: goString,
  Driver: goString,
  DriverOpts: goStringMap,
  Labels: goStringMap,
});

/** POST /networks/create */
export const networkCreateBody = goBody('types.NetworkCreateRequest', {
  Name: goString,
  CheckDuplicate: goBool,
  Driver: goString,
  Scope: goString,
  EnableIPv6: goBool,
  IPAM: goStruct('network.IPAM', {
    Driver: goString,
    Options: goStringMap,
    Config: goList(
      '[]network.IPAMConfig',
      goStruct('network.IPAMConfig', { Subnet: goString, IPRange: goString, Gateway: goString, AuxiliaryAddresses: goStringMap }),
    ),
  }),
  Internal: goBool,
  Attachable: goBool,
  Ingress: goBool,
  ConfigOnly: goBool,
  ConfigFrom: goStruct('network.ConfigReference', { Network: goString }),
  Options: goStringMap,
  Labels: goStringMap,
});

/** POST /networks/{id}/connect and /disconnect */
export const networkAttachBody = goBody('types.NetworkConnect', {
  Container: goString,
  EndpointConfig: endpointSettings,
  Force: goBool,
});

/** POST /auth: registry credentials (dockerd 20.10 drops the connection on a `null` body). */
export const authBody = goBody('types.AuthConfig', {
  username: goString,
  password: goString,
  auth: goString,
  email: goString,
  serveraddress: goString,
  identitytoken: goString,
  registrytoken: goString,
});

/** The body type of each action whose body access control judges. */
export const ACCESS_BODIES: Readonly<Record<string, GoType>> = {
  'container.create': containerCreateBody,
  'container.update': containerUpdateBody,
  'network.create': networkCreateBody,
  'volume.create': volumeCreateBody,
  'network.connect': networkAttachBody,
  'network.disconnect': networkAttachBody,
};
