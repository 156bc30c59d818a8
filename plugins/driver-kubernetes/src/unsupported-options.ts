import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { KubernetesErrors } from './errors.js';

type Check = readonly [key: string, flag: string, why: string];

const empty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === '' ||
  value === false ||
  value === 0 ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);

// Host settings a pod cannot take. The docker CLI sends most of them with zero values: only a
// value the user set is refused, with the flag named, never silently dropped.
const HOST_CONFIG: readonly Check[] = [
  ['Devices', '--device', 'pods reach devices through device plugins'],
  ['DeviceRequests', '--gpus', 'pods ask for GPUs through device plugin resources'],
  ['DeviceCgroupRules', '--device-cgroup-rule', 'the kubelet owns the cgroups'],
  ['Links', '--link', 'use a user-defined network: containers reach each other by name'],
  ['VolumesFrom', '--volumes-from', 'pods do not share volumes with other pods'],
  ['VolumeDriver', '--volume-driver', 'volumes come from the cluster (kubernetes.volumes=pvc)'],
  ['IpcMode', '--ipc', 'a pod has its own IPC namespace'],
  ['PidMode', '--pid', 'a pod has its own PID namespace'],
  ['UTSMode', '--uts', 'a pod has its own UTS namespace'],
  ['UsernsMode', '--userns', 'the kubelet decides user namespaces'],
  ['CgroupnsMode', '--cgroupns', 'the kubelet owns the cgroups'],
  ['Cgroup', '--cgroup', 'the kubelet owns the cgroups'],
  ['CgroupParent', '--cgroup-parent', 'the kubelet owns the cgroups'],
  ['SecurityOpt', '--security-opt', 'use a pod security context'],
  ['StorageOpt', '--storage-opt', 'the container runtime decides storage'],
  ['Sysctls', '--sysctl', 'pod sysctls must be allowed by the kubelet'],
  ['Ulimits', '--ulimit', 'Kubernetes has no per-pod ulimits'],
  ['GroupAdd', '--group-add', 'use a numeric --user'],
  ['OomScoreAdj', '--oom-score-adj', 'the kubelet sets it from the QoS class'],
  ['OomKillDisable', '--oom-kill-disable', 'the kubelet owns the OOM settings'],
  ['CpuPeriod', '--cpu-period', 'use --cpus'],
  ['CpuQuota', '--cpu-quota', 'use --cpus'],
  ['CpuRealtimePeriod', '--cpu-rt-period', 'the kubelet owns the cgroups'],
  ['CpuRealtimeRuntime', '--cpu-rt-runtime', 'the kubelet owns the cgroups'],
  ['CpusetCpus', '--cpuset-cpus', "the kubelet's CPU manager pins CPUs"],
  ['CpusetMems', '--cpuset-mems', "the kubelet's memory manager pins memory"],
  ['BlkioWeight', '--blkio-weight', 'Kubernetes has no block IO limits'],
  ['BlkioWeightDevice', '--blkio-weight-device', 'Kubernetes has no block IO limits'],
  ['BlkioDeviceReadBps', '--device-read-bps', 'Kubernetes has no block IO limits'],
  ['BlkioDeviceWriteBps', '--device-write-bps', 'Kubernetes has no block IO limits'],
  ['BlkioDeviceReadIOps', '--device-read-iops', 'Kubernetes has no block IO limits'],
  ['BlkioDeviceWriteIOps', '--device-write-iops', 'Kubernetes has no block IO limits'],
  ['MemoryReservation', '--memory-reservation', 'use -m (requests and limits)'],
  ['KernelMemory', '--kernel-memory', 'Kubernetes has no kernel memory limit'],
  ['Runtime', '--runtime', 'use a RuntimeClass'],
  ['Isolation', '--isolation', 'Linux nodes have one isolation'],
  ['ContainerIDFile', '--cidfile', 'a client-side option the API never needs'],
  ['MaskedPaths', '--security-opt systempaths', 'use a pod security context'],
  ['ReadonlyPaths', '--security-opt systempaths', 'use a pod security context'],
  ['Init', '--init', 'the image must bring its own init'],
];

const CONFIG: readonly Check[] = [
  ['Healthcheck', '--health-cmd', 'Kubernetes probes are not mapped yet'],
  ['MacAddress', '--mac-address', 'the cluster network assigns addresses'],
  ['NetworkDisabled', '--network none', 'every pod is on the cluster network'],
  ['OnBuild', 'ONBUILD', 'build instructions do not run in a pod'],
  ['Shell', 'SHELL', 'build instructions do not run in a pod'],
  ['Domainname', '--domainname', 'pods take the cluster domain'],
];

function refuse(flag: string, why: string): never {
  throw KubernetesErrors.optionUnsupported({ option: flag, why });
}

/** Refuses the first option set to a value a pod cannot honour. */
export function refuseUnsupported(config: ContainerConfig): void {
  const host = (config.HostConfig ?? {}) as Record<string, unknown>;
  for (const [key, flag, why] of HOST_CONFIG) if (!empty(host[key])) refuse(flag, why);
  for (const [key, flag, why] of CONFIG) if (!empty((config as Record<string, unknown>)[key])) refuse(flag, why);
  const swap = host['MemorySwap'];
  if (!empty(swap) && swap !== -1 && swap !== host['Memory'] && swap !== Number(host['Memory'] ?? 0) * 2) {
    refuse('--memory-swap', 'Kubernetes nodes run without a per-container swap limit');
  }
  const swappiness = host['MemorySwappiness'];
  if (!empty(swappiness) && swappiness !== -1) refuse('--memory-swappiness', 'the kubelet owns the memory settings');
  const pids = host['PidsLimit'];
  if (!empty(pids) && pids !== -1) refuse('--pids-limit', 'the kubelet sets the pod PID limit');
  const shm = host['ShmSize'];
  if (!empty(shm) && shm !== 67_108_864)
    refuse('--shm-size', 'a pod gets /dev/shm from its runtime (mount an emptyDir of medium Memory instead)');
  const log = host['LogConfig'] as { Type?: string; Config?: Record<string, string> } | undefined;
  if (log && log.Type && log.Type !== 'json-file') refuse('--log-driver', 'the kubelet keeps container logs (kubectl logs, docker logs)');
  if (log && !empty(log.Config)) refuse('--log-opt', 'the kubelet keeps container logs');
  const stopSignal = (config as Record<string, unknown>)['StopSignal'];
  if (!empty(stopSignal) && stopSignal !== 'SIGTERM' && stopSignal !== '15')
    refuse('--stop-signal', 'the kubelet stops containers with SIGTERM');
  const mode = host['NetworkMode'];
  if (typeof mode === 'string' && /^(container:|none$)/.test(mode)) {
    refuse(`--network ${mode}`, mode === 'none' ? 'every pod is on the cluster network' : 'a pod cannot join another pod');
  }
}
