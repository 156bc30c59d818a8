import type { JsonObject } from './model.js';

/**
 * Fixed parts of a dockerd 20.10.24 (API 1.41) answer, copied field by field from a real engine
 * here; the hollow engine fills in the parts that vary per engine or container.
 */
export const SERVER_VERSION = '20.10.24+hollow';
export const API_VERSION = '1.41';
export const MIN_API_VERSION = '1.12';
export const KERNEL_VERSION = '6.1.0-hollow';
export const OPERATING_SYSTEM = 'Debian GNU/Linux 12 (bookworm)';

/** A create request's HostConfig as the engine's Go struct starts: nil slices are `null`. */
export const HOST_CONFIG_DEFAULTS: JsonObject = {
  Binds: null,
  ContainerIDFile: '',
  LogConfig: { Type: '', Config: null },
  NetworkMode: '',
  PortBindings: null,
  RestartPolicy: { Name: '', MaximumRetryCount: 0 },
  AutoRemove: false,
  VolumeDriver: '',
  VolumesFrom: null,
  CapAdd: null,
  CapDrop: null,
  CgroupnsMode: '',
  Dns: null,
  DnsOptions: null,
  DnsSearch: null,
  ExtraHosts: null,
  GroupAdd: null,
  IpcMode: '',
  Cgroup: '',
  Links: null,
  OomScoreAdj: 0,
  PidMode: '',
  Privileged: false,
  PublishAllPorts: false,
  ReadonlyRootfs: false,
  SecurityOpt: null,
  UTSMode: '',
  UsernsMode: '',
  ShmSize: 0,
  Runtime: '',
  ConsoleSize: [0, 0],
  Isolation: '',
  CpuShares: 0,
  Memory: 0,
  NanoCpus: 0,
  CgroupParent: '',
  BlkioWeight: 0,
  BlkioWeightDevice: null,
  BlkioDeviceReadBps: null,
  BlkioDeviceWriteBps: null,
  BlkioDeviceReadIOps: null,
  BlkioDeviceWriteIOps: null,
  CpuPeriod: 0,
  CpuQuota: 0,
  CpuRealtimePeriod: 0,
  CpuRealtimeRuntime: 0,
  CpusetCpus: '',
  CpusetMems: '',
  Devices: null,
  DeviceCgroupRules: null,
  DeviceRequests: null,
  KernelMemory: 0,
  KernelMemoryTCP: 0,
  MemoryReservation: 0,
  MemorySwap: 0,
  MemorySwappiness: null,
  OomKillDisable: false,
  PidsLimit: null,
  Ulimits: null,
  CpuCount: 0,
  CpuPercent: 0,
  IOMaximumIOps: 0,
  IOMaximumBandwidth: 0,
  MaskedPaths: null,
  ReadonlyPaths: null,
};

/** What dockerd fills in at create time when the client left a field empty. */
export const HOST_CONFIG_DAEMON_DEFAULTS: JsonObject = {
  NetworkMode: 'default',
  CgroupnsMode: 'host',
  IpcMode: 'private',
  ShmSize: 67108864,
  Runtime: 'runc',
  MaskedPaths: [
    '/proc/asound',
    '/proc/acpi',
    '/proc/kcore',
    '/proc/keys',
    '/proc/latency_stats',
    '/proc/timer_list',
    '/proc/timer_stats',
    '/proc/sched_debug',
    '/proc/scsi',
    '/sys/firmware',
  ],
  ReadonlyPaths: ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
};

export const CONTAINER_CONFIG_DEFAULTS: JsonObject = {
  Hostname: '',
  Domainname: '',
  User: '',
  AttachStdin: false,
  AttachStdout: false,
  AttachStderr: false,
  Tty: false,
  OpenStdin: false,
  StdinOnce: false,
  Env: null,
  Cmd: null,
  Image: '',
  Volumes: null,
  WorkingDir: '',
  Entrypoint: null,
  OnBuild: null,
  Labels: null,
};

export const INFO_FIXED: JsonObject = {
  Driver: 'vfs',
  DriverStatus: null,
  Plugins: {
    Volume: ['local'],
    Network: ['bridge', 'host', 'ipvlan', 'macvlan', 'null', 'overlay'],
    Authorization: null,
    Log: ['awslogs', 'fluentd', 'gcplogs', 'gelf', 'journald', 'json-file', 'local', 'logentries', 'splunk', 'syslog'],
  },
  MemoryLimit: true,
  SwapLimit: true,
  KernelMemory: true,
  KernelMemoryTCP: true,
  CpuCfsPeriod: true,
  CpuCfsQuota: true,
  CPUShares: true,
  CPUSet: true,
  PidsLimit: true,
  IPv4Forwarding: true,
  BridgeNfIptables: true,
  BridgeNfIp6tables: true,
  Debug: false,
};

export const INFO_PLATFORM: JsonObject = {
  LoggingDriver: 'json-file',
  CgroupDriver: 'cgroupfs',
  CgroupVersion: '1',
};

export const INFO_TAIL: JsonObject = {
  ExperimentalBuild: false,
  ServerVersion: SERVER_VERSION,
  Runtimes: { 'io.containerd.runc.v2': { path: 'runc' }, 'io.containerd.runtime.v1.linux': { path: 'runc' }, runc: { path: 'runc' } },
  DefaultRuntime: 'runc',
  Swarm: { NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null },
  LiveRestoreEnabled: false,
  Isolation: '',
  InitBinary: 'docker-init',
  ContainerdCommit: { ID: '1.6.20~ds1', Expected: '1.6.20~ds1' },
  RuncCommit: { ID: '1.1.5+ds1', Expected: '1.1.5+ds1' },
  InitCommit: { ID: '', Expected: '' },
  SecurityOptions: ['name=seccomp,profile=default'],
};

export const REGISTRY_CONFIG: JsonObject = {
  AllowNondistributableArtifactsCIDRs: [],
  AllowNondistributableArtifactsHostnames: [],
  InsecureRegistryCIDRs: ['127.0.0.0/8'],
  IndexConfigs: { 'docker.io': { Name: 'docker.io', Mirrors: [], Secure: true, Official: true } },
  Mirrors: [],
};

export function versionAnswer(): JsonObject {
  const details = {
    ApiVersion: API_VERSION,
    Arch: 'amd64',
    BuildTime: '2026-05-07T21:09:36.000000000+00:00',
    Experimental: 'false',
    GitCommit: 'hollow',
    GoVersion: 'go1.19.8',
    KernelVersion: KERNEL_VERSION,
    MinAPIVersion: MIN_API_VERSION,
    Os: 'linux',
  };
  return {
    Platform: { Name: '' },
    Components: [
      { Name: 'Engine', Version: SERVER_VERSION, Details: details },
      { Name: 'containerd', Version: '1.6.20~ds1', Details: { GitCommit: '1.6.20~ds1' } },
      { Name: 'runc', Version: '1.1.5+ds1', Details: { GitCommit: '1.1.5+ds1' } },
      { Name: 'docker-init', Version: '0.19.0', Details: { GitCommit: '' } },
    ],
    Version: SERVER_VERSION,
    ApiVersion: API_VERSION,
    MinAPIVersion: MIN_API_VERSION,
    GitCommit: 'hollow',
    GoVersion: 'go1.19.8',
    Os: 'linux',
    Arch: 'amd64',
    KernelVersion: KERNEL_VERSION,
    BuildTime: details.BuildTime,
  };
}
