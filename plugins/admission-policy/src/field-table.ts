import { allowed, ignored, judged, judgedAt, only, refused, restrictedBy, type FieldRow } from './field-treatment.js';

/*
 * Every field the engine reads in the bodies admission is about, with its treatment per level:
 * the allow-list. The paths are those of the Engine API's swagger (1.41, the API the manager
 * serves, and the newest the mirror of moby has), listed by scripts/swagger-fields.mjs into
 * scripts/swagger-fields.json; a unit test fails when the swagger has a field this table does not
 * classify. A field of a create body that is not here is refused at baseline and restricted, so a
 * field a newer engine learns is refused until it is classified.
 *
 * Path syntax: `HostConfig.Mounts[].Source` is a field of each object of a list,
 * `NetworkingConfig.EndpointsConfig.*.Aliases` a field of each value of a map, `?name` a query
 * parameter. Actions whose query parameters carry what the engine runs (builds, imports) add their
 * own table here, under their action name.
 */

type Table = Readonly<Record<string, FieldRow>>;

const HEALTHCHECK: Table = {
  'Healthcheck.Test': allowed,
  'Healthcheck.Interval': allowed,
  'Healthcheck.Timeout': allowed,
  'Healthcheck.Retries': allowed,
  'Healthcheck.StartPeriod': allowed,
  'Healthcheck.StartInterval': allowed,
};

/** `Config`: what runs inside the container; nothing of it reaches the host. */
const CONFIG: Table = {
  Hostname: allowed,
  Domainname: allowed,
  User: restrictedBy('run-as-non-root'),
  AttachStdin: allowed,
  AttachStdout: allowed,
  AttachStderr: allowed,
  ExposedPorts: allowed,
  Tty: allowed,
  OpenStdin: allowed,
  StdinOnce: allowed,
  Env: allowed,
  Cmd: allowed,
  ...HEALTHCHECK,
  ArgsEscaped: allowed,
  Image: allowed,
  // anonymous volumes, made by HostConfig.VolumeDriver (judged there)
  Volumes: allowed,
  WorkingDir: allowed,
  Entrypoint: allowed,
  NetworkDisabled: allowed,
  MacAddress: allowed,
  OnBuild: allowed,
  // the manager's own labels (com.docker.swarm.*) are among them
  Labels: allowed,
  StopSignal: allowed,
  StopTimeout: allowed,
  Shell: allowed,
};

const BLKIO_DEVICES = ['BlkioDeviceReadBps', 'BlkioDeviceReadIOps', 'BlkioDeviceWriteBps', 'BlkioDeviceWriteIOps'];

/**
 * `Resources`, in a create's HostConfig: limits only lower what a container gets, devices are
 * the `devices` rule's. A block device's throttle names a host device the engine looks up, which
 * only limits this container.
 */
const RESOURCES: Table = {
  CpuShares: allowed,
  Memory: restrictedBy('resource-limits'),
  CgroupParent: judged('cgroup-parent'),
  BlkioWeight: allowed,
  'BlkioWeightDevice[].Path': allowed,
  'BlkioWeightDevice[].Weight': allowed,
  ...Object.fromEntries(BLKIO_DEVICES.flatMap((name) => [`${name}[].Path`, `${name}[].Rate`]).map((path) => [path, allowed])),
  CpuPeriod: allowed,
  CpuQuota: restrictedBy('resource-limits'),
  CpuRealtimePeriod: allowed,
  CpuRealtimeRuntime: allowed,
  CpusetCpus: allowed,
  CpusetMems: allowed,
  'Devices[].PathOnHost': judged('devices'),
  'Devices[].PathInContainer': judged('devices'),
  'Devices[].CgroupPermissions': judged('devices'),
  DeviceCgroupRules: judged('devices'),
  'DeviceRequests[].Driver': judged('devices'),
  'DeviceRequests[].Count': judged('devices'),
  'DeviceRequests[].DeviceIDs': judged('devices'),
  'DeviceRequests[].Capabilities': judged('devices'),
  'DeviceRequests[].Options': judged('devices'),
  KernelMemory: allowed,
  KernelMemoryTCP: allowed,
  MemoryReservation: allowed,
  MemorySwap: allowed,
  MemorySwappiness: allowed,
  NanoCpus: restrictedBy('resource-limits'),
  OomKillDisable: refused('a container the OOM killer may not kill makes the host kill its own processes instead'),
  Init: allowed,
  PidsLimit: allowed,
  'Ulimits[].Name': allowed,
  'Ulimits[].Soft': allowed,
  'Ulimits[].Hard': allowed,
  // Windows only: the Linux engine does not read them
  CpuCount: allowed,
  CpuPercent: allowed,
  IOMaximumIOps: allowed,
  IOMaximumBandwidth: allowed,
};

const MOUNTS: Table = {
  'Mounts[].Target': allowed,
  'Mounts[].Source': judged('host-path'),
  'Mounts[].Type': judged('host-path'),
  'Mounts[].ReadOnly': judged('host-path'),
  'Mounts[].Consistency': allowed,
  'Mounts[].BindOptions.Propagation': judged('host-path'),
  'Mounts[].BindOptions.NonRecursive': allowed,
  'Mounts[].BindOptions.CreateMountpoint': judged('host-path'),
  'Mounts[].BindOptions.ReadOnlyNonRecursive': judged('host-path'),
  'Mounts[].BindOptions.ReadOnlyForceRecursive': allowed,
  'Mounts[].VolumeOptions.NoCopy': allowed,
  'Mounts[].VolumeOptions.Labels': allowed,
  'Mounts[].VolumeOptions.DriverConfig.Name': judged('volumes'),
  'Mounts[].VolumeOptions.DriverConfig.Options': judged('volumes'),
  // a path inside the volume, resolved by the engine within the volume
  'Mounts[].VolumeOptions.Subpath': allowed,
  'Mounts[].ImageOptions.Subpath': allowed,
  'Mounts[].TmpfsOptions.SizeBytes': allowed,
  'Mounts[].TmpfsOptions.Mode': allowed,
  'Mounts[].TmpfsOptions.Options': allowed,
};

/** `HostConfig` beyond Resources and Mounts. */
const HOST: Table = {
  Binds: judged('host-path'),
  ContainerIDFile: allowed,
  'LogConfig.Type': only(['', 'json-file', 'local', 'none'], "another log driver sends the logs elsewhere from the engine's host"),
  'LogConfig.Config': judged('log-options'),
  NetworkMode: judged('host-namespaces'),
  PortBindings: allowed,
  'RestartPolicy.Name': allowed,
  'RestartPolicy.MaximumRetryCount': allowed,
  AutoRemove: allowed,
  VolumeDriver: judged('volumes'),
  // another container's volumes, at most as writable as that container has them
  VolumesFrom: allowed,
  ConsoleSize: allowed,
  Annotations: refused("OCI annotations are read by the engine's runtime, which trusts them"),
  CapAdd: judgedAt('capabilities', 'capabilities-restricted'),
  CapDrop: allowed,
  CgroupnsMode: judged('host-namespaces'),
  Dns: allowed,
  DnsOptions: allowed,
  DnsSearch: allowed,
  ExtraHosts: allowed,
  GroupAdd: allowed,
  IpcMode: judged('host-namespaces'),
  Cgroup: judged('cgroup-parent'),
  Links: allowed,
  OomScoreAdj: judged('oom-score'),
  PidMode: judged('host-namespaces'),
  Privileged: judged('privileged'),
  PublishAllPorts: allowed,
  ReadonlyRootfs: allowed,
  SecurityOpt: judged('security-opt'),
  StorageOpt: allowed,
  Tmpfs: judged('host-path'),
  UTSMode: judged('host-namespaces'),
  UsernsMode: judged('host-namespaces'),
  ShmSize: allowed,
  Sysctls: judged('sysctls'),
  Runtime: only(['', 'runc', 'io.containerd.runc.v2'], "another runtime is one the engine's operator set up for other uses"),
  Isolation: only(['', 'default'], 'Windows isolation modes'),
  MaskedPaths: judged('proc-mount'),
  ReadonlyPaths: judged('proc-mount'),
};

const ENDPOINT = [
  'IPAMConfig.IPv4Address',
  'IPAMConfig.IPv6Address',
  'IPAMConfig.LinkLocalIPs',
  'Links',
  'Aliases',
  'DriverOpts',
  'GwPriority',
  'MacAddress',
  'DNSNames',
  'NetworkID',
  'EndpointID',
  'Gateway',
  'IPAddress',
  'IPPrefixLen',
  'IPv6Gateway',
  'GlobalIPv6Address',
  'GlobalIPv6PrefixLen',
];

const prefixed = (prefix: string, table: Table): Table =>
  Object.fromEntries(Object.entries(table).map(([path, row]) => [`${prefix}${path}`, row]));

/** `POST /containers/create`: Config, HostConfig (Resources, Mounts, the rest), NetworkingConfig. */
export const CONTAINER_CREATE: Table = {
  '?name': allowed,
  '?platform': allowed,
  ...CONFIG,
  ...prefixed('HostConfig.', { ...RESOURCES, ...MOUNTS, ...HOST }),
  // an endpoint in a network the caller may see (the manager checks the reference)
  ...Object.fromEntries(ENDPOINT.map((path) => [`NetworkingConfig.EndpointsConfig.*.${path}`, allowed])),
};

/** What dockerd's update applies (moby's `UpdateContainer`): limits and the restart policy. */
const UPDATED = new Set([
  'BlkioWeight',
  'CpuShares',
  'NanoCpus',
  'CpuPeriod',
  'CpuQuota',
  'CpusetCpus',
  'CpusetMems',
  'Memory',
  'MemorySwap',
  'MemoryReservation',
  'KernelMemory',
  'CpuRealtimePeriod',
  'CpuRealtimeRuntime',
  'PidsLimit',
]);

/**
 * `POST /containers/{id}/update`: Resources and RestartPolicy. At restricted, the limits restricted
 * needs may not be lifted (`limits-kept`); what the update does not apply changes nothing.
 */
export const CONTAINER_UPDATE: Table = {
  ...Object.fromEntries(
    Object.keys(RESOURCES).map((path) => {
      if (!UPDATED.has(path)) return [path, ignored];
      return [path, path === 'Memory' || path === 'NanoCpus' || path === 'CpuQuota' ? restrictedBy('limits-kept') : allowed];
    }),
  ),
  'RestartPolicy.Name': allowed,
  'RestartPolicy.MaximumRetryCount': allowed,
};

/** `POST /containers/{id}/exec`: runs in the container, with its own user and privileges. */
export const CONTAINER_EXEC: Table = {
  AttachStdin: allowed,
  AttachStdout: allowed,
  AttachStderr: allowed,
  ConsoleSize: allowed,
  DetachKeys: allowed,
  Tty: allowed,
  Env: allowed,
  Cmd: allowed,
  WorkingDir: allowed,
  Privileged: judged('privileged'),
  User: restrictedBy('run-as-non-root'),
};

const CLUSTER_VOLUME = [
  'AccessMode.AccessibilityRequirements.Preferred[].Segments',
  'AccessMode.AccessibilityRequirements.Requisite[].Segments',
  'AccessMode.Availability',
  'AccessMode.CapacityRange.LimitBytes',
  'AccessMode.CapacityRange.RequiredBytes',
  'AccessMode.MountVolume',
  'AccessMode.Scope',
  'AccessMode.Secrets[].Key',
  'AccessMode.Secrets[].Secret',
  'AccessMode.Sharing',
  'Group',
];

/** `POST /volumes/create`: judged as the one mount it would make. */
export const VOLUME_CREATE: Table = {
  Name: allowed,
  Driver: judged('volume-create'),
  DriverOpts: judged('volume-create'),
  Labels: allowed,
  // swarm mode's CSI volumes: an engine outside swarm mode refuses them
  ...Object.fromEntries(CLUSTER_VOLUME.map((path) => [`ClusterVolumeSpec.${path}`, refused('cluster volumes are swarm mode CSI volumes')])),
};

/**
 * `POST /networks/create`: a driver and its options can attach containers to the host's
 * interfaces (a macvlan's or ipvlan's `parent`), take the engine's own bridge
 * (`com.docker.network.bridge.name=docker0`) or change how the host routes and publishes
 * (network-rules.ts).
 */
export const NETWORK_CREATE: Table = {
  Name: allowed,
  CheckDuplicate: allowed,
  Driver: judged('network-driver'),
  Scope: allowed,
  Internal: allowed,
  Attachable: allowed,
  Ingress: refused("the ingress network is swarm mode's routing mesh"),
  ConfigOnly: refused('a config-only network holds driver options for other networks to take'),
  'ConfigFrom.Network': refused("the network would take another network's driver options, which were not judged as its own"),
  'IPAM.Driver': judged('network-ipam'),
  'IPAM.Config': allowed,
  'IPAM.Config[].Subnet': judged('network-subnets'),
  'IPAM.Config[].IPRange': judged('network-subnets'),
  'IPAM.Config[].Gateway': judged('network-subnets'),
  'IPAM.Config[].AuxiliaryAddresses': judged('network-subnets'),
  'IPAM.Options': judged('network-ipam'),
  Options: judged('network-options'),
  Labels: allowed,
  EnableIPv4: allowed,
  EnableIPv6: allowed,
};

/** The table, per action. */
export const FIELD_TABLE: Readonly<Record<string, Table>> = {
  'container.create': CONTAINER_CREATE,
  'container.update': CONTAINER_UPDATE,
  'container.exec': CONTAINER_EXEC,
  'volume.create': VOLUME_CREATE,
  'network.create': NETWORK_CREATE,
};
