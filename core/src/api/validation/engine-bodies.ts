import {
  goArray,
  goBody,
  goBodyEmbedding,
  goBool,
  goBoolPointer,
  goInt,
  goIntNative,
  goIntNativePointer,
  goIntPointer,
  goList,
  goMap,
  goSet,
  goString,
  goStringMap,
  goStrings,
  goStrSlice,
  goStruct,
  goStructPointer,
  goUint,
  goUint16,
  goUint32,
  goUintNative,
  type GoType,
} from './go-types.js';
import { hostConfigAsDockerdReadsIt } from './legacy-host-config.js';

// The request bodies swarm reads or forwards, with the Engine API's field types (api/types in
// moby) as of v1.41 (dockerd 20.10) and the fields later APIs added. A field not listed here is
// one dockerd's decoder ignores, and is left out of what swarm judges and sends.

const healthcheck = goStructPointer('container.HealthConfig', {
  Test: goStrings,
  Interval: goInt,
  Timeout: goInt,
  StartPeriod: goInt,
  StartInterval: goInt,
  Retries: goIntNative,
});

const portBinding = goStruct('nat.PortBinding', { HostIp: goString, HostPort: goString });

const mount = goStruct('mount.Mount', {
  Type: goString,
  Source: goString,
  Target: goString,
  ReadOnly: goBool,
  Consistency: goString,
  BindOptions: goStructPointer('mount.BindOptions', {
    Propagation: goString,
    NonRecursive: goBool,
    CreateMountpoint: goBool,
    ReadOnlyNonRecursive: goBool,
    ReadOnlyForceRecursive: goBool,
  }),
  VolumeOptions: goStructPointer('mount.VolumeOptions', {
    NoCopy: goBool,
    Labels: goStringMap,
    Subpath: goString,
    DriverConfig: goStructPointer('mount.Driver', { Name: goString, Options: goStringMap }),
  }),
  ImageOptions: goStructPointer('mount.ImageOptions', { Subpath: goString }),
  TmpfsOptions: goStructPointer('mount.TmpfsOptions', {
    SizeBytes: goInt,
    Mode: goUint32,
    Options: goList('[][]string', goStrings),
  }),
  ClusterOptions: goStructPointer('mount.ClusterOptions', {}),
});

const weightDevice = goStructPointer('blkiodev.WeightDevice', { Path: goString, Weight: goUint16 });
const throttleDevice = goStructPointer('blkiodev.ThrottleDevice', { Path: goString, Rate: goUint });

/** container.Resources: what `docker update` changes, and part of HostConfig. */
const resourcesFields = {
  CpuShares: goInt,
  Memory: goInt,
  NanoCpus: goInt,
  CgroupParent: goString,
  BlkioWeight: goUint16,
  BlkioWeightDevice: goList('[]*blkiodev.WeightDevice', weightDevice),
  BlkioDeviceReadBps: goList('[]*blkiodev.ThrottleDevice', throttleDevice),
  BlkioDeviceWriteBps: goList('[]*blkiodev.ThrottleDevice', throttleDevice),
  BlkioDeviceReadIOps: goList('[]*blkiodev.ThrottleDevice', throttleDevice),
  BlkioDeviceWriteIOps: goList('[]*blkiodev.ThrottleDevice', throttleDevice),
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
  DeviceRequests: goList(
    '[]container.DeviceRequest',
    goStruct('container.DeviceRequest', {
      Driver: goString,
      Count: goIntNative,
      DeviceIDs: goStrings,
      Capabilities: goList('[][]string', goStrings),
      Options: goStringMap,
    }),
  ),
  KernelMemory: goInt,
  KernelMemoryTCP: goInt,
  MemoryReservation: goInt,
  MemorySwap: goInt,
  MemorySwappiness: goIntPointer,
  OomKillDisable: goBoolPointer,
  PidsLimit: goIntPointer,
  Ulimits: goList('[]*units.Ulimit', goStructPointer('units.Ulimit', { Name: goString, Hard: goInt, Soft: goInt })),
  CpuCount: goInt,
  CpuPercent: goInt,
  IOMaximumIOps: goUint,
  IOMaximumBandwidth: goUint,
};

const restartPolicy = goStruct('container.RestartPolicy', { Name: goString, MaximumRetryCount: goIntNative });

const hostConfigFields = {
  Binds: goStrings,
  ContainerIDFile: goString,
  LogConfig: goStruct('container.LogConfig', { Type: goString, Config: goStringMap }),
  NetworkMode: goString,
  PortBindings: goMap('nat.PortMap', goList('[]nat.PortBinding', portBinding)),
  RestartPolicy: restartPolicy,
  AutoRemove: goBool,
  VolumeDriver: goString,
  VolumesFrom: goStrings,
  ConsoleSize: goArray('[2]uint', 2, goUintNative),
  Annotations: goStringMap,
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
  OomScoreAdj: goIntNative,
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
  ...resourcesFields,
  Mounts: goList('[]mount.Mount', mount),
  MaskedPaths: goStrings,
  ReadonlyPaths: goStrings,
  Init: goBoolPointer,
};

const hostConfig = goStructPointer('container.HostConfig', hostConfigFields);

/** `docker update`'s body (container.UpdateConfig): the resources and the restart policy. */
export const containerUpdateBody = goBody('container.UpdateConfig', { ...resourcesFields, RestartPolicy: restartPolicy });

const endpointSettingsFields = {
  IPAMConfig: goStructPointer('network.EndpointIPAMConfig', { IPv4Address: goString, IPv6Address: goString, LinkLocalIPs: goStrings }),
  Links: goStrings,
  Aliases: goStrings,
  MacAddress: goString,
  DriverOpts: goStringMap,
  GwPriority: goIntNative,
  NetworkID: goString,
  EndpointID: goString,
  Gateway: goString,
  IPAddress: goString,
  IPPrefixLen: goIntNative,
  IPv6Gateway: goString,
  GlobalIPv6Address: goString,
  GlobalIPv6PrefixLen: goIntNative,
  DNSNames: goStrings,
};

/**
 * POST /containers/create: container.Config, HostConfig and NetworkingConfig, and the HostConfig
 * fields dockerd up to 26.1 also reads from the top level of the body (legacy-host-config.ts).
 */
export const containerCreateBody = goBodyEmbedding(
  'container.Config',
  {
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
    StopTimeout: goIntNativePointer,
    Shell: goStrSlice,
    HostConfig: hostConfig,
    Cpuset: goString,
    NetworkingConfig: goStructPointer('network.NetworkingConfig', {
      EndpointsConfig: goMap('map[string]*network.EndpointSettings', goStructPointer('network.EndpointSettings', endpointSettingsFields)),
    }),
  },
  hostConfigFields,
  hostConfigAsDockerdReadsIt,
);

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
  ConsoleSize: goArray('*[2]uint', 2, goUintNative, true),
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
  EnableIPv4: goBoolPointer,
  IPAM: goStructPointer('network.IPAM', {
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
  ConfigFrom: goStructPointer('network.ConfigReference', { Network: goString }),
  Options: goStringMap,
  Labels: goStringMap,
});

/** POST /networks/{id}/connect and /disconnect */
export const networkAttachBody = goBody('types.NetworkConnect', {
  Container: goString,
  EndpointConfig: goStructPointer('network.EndpointSettings', endpointSettingsFields),
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
