import type * as k8s from '@kubernetes/client-node';
import type { Container, Node } from '@swarm/plugin-sdk';
import type { ContainerConfig, ContainerInspect, ContainerSummary } from '@swarm/plugin-sdk/docker';
import { humanDuration, requestedCpus } from '@swarm/plugin-sdk/helpers';
import { PodMarks } from './labels.js';
import { membershipsOf, type Memberships } from './network-membership.js';

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** What docker would say about the pod's one container. */
export interface ContainerState {
  status: 'created' | 'running' | 'restarting' | 'exited' | 'removing';
  exitCode: number;
  startedAt: string;
  finishedAt: string;
  error: string;
  oomKilled: boolean;
  restartCount: number;
}

function timeOf(text: string | Date | undefined): string {
  if (text === undefined) return ZERO_TIME;
  return typeof text === 'string' ? text : text.toISOString();
}

function parseConfig(pod: k8s.V1Pod): ContainerConfig {
  const raw = pod.metadata?.annotations?.[PodMarks.config];
  if (raw) {
    try {
      return JSON.parse(raw) as ContainerConfig;
    } catch {
      // a hand-edited annotation: fall back to the pod's own spec below
    }
  }
  const container = pod.spec?.containers[0];
  return { Image: container?.image ?? '', Cmd: container?.args ?? null, Entrypoint: container?.command ?? null, Labels: {} };
}

/** The docker state of a pod's container, from the status the kubelet reports. */
export function containerState(pod: k8s.V1Pod): ContainerState {
  const status = pod.status?.containerStatuses?.[0];
  const restartCount = status?.restartCount ?? 0;
  const base: ContainerState = {
    status: 'created',
    exitCode: 0,
    startedAt: ZERO_TIME,
    finishedAt: ZERO_TIME,
    error: '',
    oomKilled: false,
    restartCount,
  };
  const last = status?.lastState?.terminated;
  if (last) {
    base.exitCode = last.exitCode;
    base.startedAt = timeOf(last.startedAt);
    base.finishedAt = timeOf(last.finishedAt);
  }
  const state = status?.state;
  if (state?.running) return { ...base, status: 'running', startedAt: timeOf(state.running.startedAt) };
  if (state?.terminated) {
    return {
      ...base,
      status: 'exited',
      exitCode: state.terminated.exitCode,
      startedAt: timeOf(state.terminated.startedAt),
      finishedAt: timeOf(state.terminated.finishedAt),
      oomKilled: state.terminated.reason === 'OOMKilled',
      error: state.terminated.reason === 'Error' || state.terminated.reason === 'Completed' ? '' : (state.terminated.message ?? ''),
    };
  }
  const waiting = state?.waiting;
  if (waiting?.reason === 'CrashLoopBackOff') return { ...base, status: 'restarting' };
  if (waiting && /Err|BackOff|Invalid|Error/.test(waiting.reason ?? '')) {
    base.error = `${waiting.reason}: ${waiting.message ?? ''}`.trim();
  }
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed')
    return { ...base, status: 'exited', exitCode: base.exitCode || (phase === 'Failed' ? 1 : 0) };
  if (pod.metadata?.deletionTimestamp && !pod.spec?.nodeName) return { ...base, status: 'exited' };
  return base;
}

function statusText(state: ContainerState, now: number): string {
  const since = (time: string) => humanDuration(Math.max(0, now - Date.parse(time)));
  switch (state.status) {
    case 'running':
      return `Up ${since(state.startedAt)}`;
    case 'restarting':
      return `Restarting (${state.exitCode}) ${since(state.finishedAt === ZERO_TIME ? new Date(now).toISOString() : state.finishedAt)} ago`;
    case 'exited':
      return state.finishedAt === ZERO_TIME ? `Exited (${state.exitCode})` : `Exited (${state.exitCode}) ${since(state.finishedAt)} ago`;
    case 'removing':
      return 'Removal In Progress';
    default:
      return 'Created';
  }
}

/** A pod made by swarm, as one docker container. */
export class PodContainer implements Container {
  readonly id: string;
  readonly name: string;
  readonly names: readonly string[];
  readonly config: ContainerConfig;
  readonly labels: Readonly<Record<string, string>>;
  readonly reservedCpus: number;
  readonly created: string;
  readonly dockerState: ContainerState;
  private joined: Memberships | undefined;

  constructor(
    readonly pod: k8s.V1Pod,
    readonly node: Node,
  ) {
    const annotations = pod.metadata?.annotations ?? {};
    this.id = annotations[PodMarks.id] ?? (pod.metadata?.uid ?? '').replace(/-/g, '').padEnd(64, '0');
    this.name = annotations[PodMarks.name] ?? pod.metadata?.name ?? '';
    this.names = [`/${this.name}`];
    this.config = parseConfig(pod);
    this.labels = this.config.Labels ?? {};
    this.reservedCpus = requestedCpus(this.config);
    this.created = annotations[PodMarks.created] ?? timeOf(pod.metadata?.creationTimestamp);
    this.dockerState = containerState(pod);
  }

  get podName(): string {
    return this.pod.metadata?.name ?? '';
  }

  get state(): string {
    return this.dockerState.status;
  }

  get image(): string {
    return this.config.Image;
  }

  get imageId(): string {
    return this.pod.status?.containerStatuses?.[0]?.imageID ?? '';
  }

  /** Bound to a node: the kubelet runs (or ran) it. */
  get bound(): boolean {
    return Boolean(this.pod.spec?.nodeName);
  }

  get deleting(): boolean {
    return Boolean(this.pod.metadata?.deletionTimestamp);
  }

  private command(): string {
    const entry = this.config.Entrypoint;
    const parts = [...(Array.isArray(entry) ? entry : entry ? [entry] : []), ...(this.config.Cmd ?? [])];
    return parts.join(' ');
  }

  private portRows(): Array<Record<string, unknown>> {
    const rows: Array<Record<string, unknown>> = [];
    for (const port of this.pod.spec?.containers[0]?.ports ?? []) {
      const row: Record<string, unknown> = { PrivatePort: port.containerPort, Type: (port.protocol ?? 'TCP').toLowerCase() };
      if (port.hostPort) {
        row['IP'] = port.hostIP ?? '0.0.0.0';
        row['PublicPort'] = port.hostPort;
      }
      rows.push(row);
    }
    return rows;
  }

  get summary(): ContainerSummary {
    return {
      Id: this.id,
      Names: [...this.names],
      Image: this.image,
      ImageID: this.imageId,
      Command: this.command(),
      Created: Math.floor(Date.parse(this.created) / 1000),
      Ports: this.portRows(),
      Labels: { ...this.labels },
      State: this.state,
      Status: statusText(this.dockerState, Date.now()),
      HostConfig: { NetworkMode: String(this.config.HostConfig?.NetworkMode ?? 'default') },
      NetworkSettings: { Networks: this.networks() },
      Mounts: [],
    };
  }

  /** The docker networks the container is on, with the names it answers to on each. */
  get memberships(): Memberships {
    this.joined ??= membershipsOf(this.pod, this.config, this.name);
    return this.joined;
  }

  private networks(): Record<string, unknown> {
    const ip = this.pod.status?.podIP ?? '';
    const networks: Record<string, unknown> = {};
    for (const [network, names] of this.memberships) {
      networks[network] = {
        Aliases: names.length > 0 ? names.filter((name) => name !== this.name) : null,
        IPAddress: ip,
        IPPrefixLen: ip ? 24 : 0,
        Gateway: '',
        MacAddress: '',
        NetworkID: network,
        EndpointID: this.podName,
      };
    }
    return networks;
  }

  /** `docker inspect`: the create config, the state from the pod status, the pod's address. */
  inspectJson(): ContainerInspect {
    const state = this.dockerState;
    const entry = this.config.Entrypoint;
    const entrypoint = Array.isArray(entry) ? entry : entry ? [entry] : [];
    const argv = [...entrypoint, ...(this.config.Cmd ?? [])];
    const ports: Record<string, Array<{ HostIp: string; HostPort: string }> | null> = {};
    for (const port of this.pod.spec?.containers[0]?.ports ?? []) {
      const key = `${port.containerPort}/${(port.protocol ?? 'TCP').toLowerCase()}`;
      ports[key] = port.hostPort ? [{ HostIp: port.hostIP ?? '0.0.0.0', HostPort: String(port.hostPort) }] : null;
    }
    const { HostConfig: hostConfig, ...config } = this.config;
    return {
      Id: this.id,
      Created: this.created,
      Path: argv[0] ?? '',
      Args: argv.slice(1),
      State: {
        Status: state.status,
        Running: state.status === 'running',
        Paused: false,
        Restarting: state.status === 'restarting',
        OOMKilled: state.oomKilled,
        Dead: false,
        Pid: 0,
        ExitCode: state.exitCode,
        Error: state.error,
        StartedAt: state.startedAt,
        FinishedAt: state.finishedAt,
      },
      Image: this.imageId || this.image,
      Name: `/${this.name}`,
      RestartCount: state.restartCount,
      Driver: 'kubernetes',
      Platform: 'linux',
      HostConfig: { NetworkMode: 'default', ...(hostConfig ?? {}) },
      Config: { Hostname: this.pod.spec?.hostname ?? this.podName, ...config, Labels: { ...this.labels } },
      NetworkSettings: {
        IPAddress: this.pod.status?.podIP ?? '',
        Ports: ports,
        Networks: this.networks(),
      },
      Mounts: [],
      Kubernetes: {
        Namespace: this.pod.metadata?.namespace ?? '',
        Pod: this.podName,
        Uid: this.pod.metadata?.uid ?? '',
        Node: this.pod.spec?.nodeName ?? '',
        Phase: this.pod.status?.phase ?? '',
      },
    };
  }
}
