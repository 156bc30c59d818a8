import type * as k8s from '@kubernetes/client-node';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { requestedCpus } from '@swarm/plugin-sdk/helpers';
import { KubernetesErrors } from './errors.js';
import { PodMarks } from './labels.js';
import type { NamedVolumeMode } from './options.js';
import { aliasLabel, answeringNames, encodeMemberships, type Memberships } from './network-membership.js';
import { isDnsLabel } from './pod-names.js';
import { cpuQuantity } from './quantity.js';
import { refuseUnsupported } from './unsupported-options.js';

export interface PodInputs {
  id: string;
  dockerName: string;
  podName: string;
  /** The create config, swarm's env directives already moved to labels. */
  config: ContainerConfig;
  /** Node chosen by swarm's scheduler: bound at start (or at once, when re-created). */
  node: string;
  bindNow: boolean;
  createdAt: string;
  namedVolumes: NamedVolumeMode;
  /** Host ports picked for `-p 80` / `-P` (container port/protocol → host port). */
  hostPorts: ReadonlyMap<string, number>;
  /** The docker networks the container is on, with the names it answers to there (its name, compose service names). */
  networks: Memberships;
}

/** Name of the claim a named volume becomes with kubernetes.volumes=pvc. */
export function claimNameFor(volume: string): string {
  return `swarm-${volume.toLowerCase().replace(/[^a-z0-9-.]+/g, '-')}`.slice(0, 253);
}

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function validLabel(key: string, value: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && !DNS_SUBDOMAIN.test(prefix)) return false;
  return LABEL_NAME.test(name) && LABEL_VALUE.test(value);
}

function restartPolicy(config: ContainerConfig): string {
  const policy = (config.HostConfig?.['RestartPolicy'] ?? {}) as { Name?: string; MaximumRetryCount?: number };
  switch (policy.Name ?? '') {
    case '':
    case 'no':
      return 'Never';
    case 'always':
    case 'unless-stopped':
      return 'Always';
    case 'on-failure':
      if ((policy.MaximumRetryCount ?? 0) > 0) {
        throw KubernetesErrors.optionUnsupported({
          option: `--restart on-failure:${policy.MaximumRetryCount}`,
          why: 'Kubernetes restarts a failing container without a limit; use --restart on-failure',
        });
      }
      return 'OnFailure';
    default:
      throw KubernetesErrors.optionInvalid({
        option: '--restart',
        value: String(policy.Name),
        why: 'use no, always, unless-stopped or on-failure',
      });
  }
}

function securityContext(config: ContainerConfig): k8s.V1SecurityContext | undefined {
  const host = (config.HostConfig ?? {}) as Record<string, unknown>;
  const context: k8s.V1SecurityContext = {};
  if (host['Privileged'] === true) context.privileged = true;
  const add = (host['CapAdd'] as string[] | null | undefined) ?? [];
  const drop = (host['CapDrop'] as string[] | null | undefined) ?? [];
  const capability = (name: string) => name.replace(/^CAP_/i, '').toUpperCase();
  if (add.length > 0 || drop.length > 0) context.capabilities = { add: add.map(capability), drop: drop.map(capability) };
  if (host['ReadonlyRootfs'] === true) context.readOnlyRootFilesystem = true;
  const user = typeof config['User'] === 'string' ? (config['User'] as string) : '';
  if (user !== '') {
    const match = /^(\d+)(?::(\d+))?$/.exec(user);
    if (!match) {
      throw KubernetesErrors.optionInvalid({ option: '--user', value: user, why: 'Kubernetes takes numeric IDs: use --user UID[:GID]' });
    }
    context.runAsUser = Number(match[1]);
    if (match[2] !== undefined) context.runAsGroup = Number(match[2]);
  }
  return Object.keys(context).length > 0 ? context : undefined;
}

function resources(config: ContainerConfig): k8s.V1ResourceRequirements | undefined {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  const memory = Number(config.HostConfig?.Memory ?? 0);
  if (memory > 0) requests['memory'] = limits['memory'] = String(memory);
  // Swarm classic reads CpuShares as a count of CPUs to reserve: the pod requests them.
  const reserved = requestedCpus(config);
  if (reserved > 0) requests['cpu'] = cpuQuantity(reserved);
  const nano = Number(config.HostConfig?.['NanoCpus'] ?? 0);
  if (nano > 0) {
    limits['cpu'] = cpuQuantity(nano / 1e9);
    requests['cpu'] ??= limits['cpu'];
  }
  if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) return undefined;
  const out: k8s.V1ResourceRequirements = {};
  if (Object.keys(requests).length > 0) out.requests = requests;
  if (Object.keys(limits).length > 0) out.limits = limits;
  return out;
}

interface VolumePlan {
  volumes: k8s.V1Volume[];
  mounts: k8s.V1VolumeMount[];
  claims: string[];
}

function volumeName(index: number): string {
  return `vol-${index}`;
}

function plannedVolumes(config: ContainerConfig, mode: NamedVolumeMode): VolumePlan {
  const plan: VolumePlan = { volumes: [], mounts: [], claims: [] };
  const add = (source: k8s.V1Volume, mountPath: string, readOnly: boolean) => {
    const name = volumeName(plan.volumes.length);
    plan.volumes.push({ ...source, name });
    plan.mounts.push(readOnly ? { name, mountPath, readOnly } : { name, mountPath });
  };
  const named = (volume: string, mountPath: string, readOnly: boolean) => {
    if (mode === 'persistentVolumeClaim') {
      const claimName = claimNameFor(volume);
      plan.claims.push(volume);
      add({ name: '', persistentVolumeClaim: { claimName } }, mountPath, readOnly);
    } else {
      add({ name: '', emptyDir: {} }, mountPath, readOnly);
    }
  };
  for (const bind of config.HostConfig?.Binds ?? []) {
    const parts = bind.split(':');
    if (parts.length < 2) throw KubernetesErrors.optionInvalid({ option: '--volume', value: bind, why: 'use SOURCE:DESTINATION[:ro]' });
    const [source, target, modes = ''] = parts as [string, string, string?];
    const readOnly = modes.split(',').includes('ro');
    if (source.startsWith('/')) add({ name: '', hostPath: { path: source, type: 'DirectoryOrCreate' } }, target, readOnly);
    else named(source, target, readOnly);
  }
  for (const mount of (config.HostConfig?.['Mounts'] as Array<Record<string, unknown>> | undefined) ?? []) {
    const target = String(mount['Target'] ?? '');
    const readOnly = mount['ReadOnly'] === true;
    switch (mount['Type']) {
      case 'bind':
        add({ name: '', hostPath: { path: String(mount['Source']), type: 'DirectoryOrCreate' } }, target, readOnly);
        break;
      case 'volume':
        if (mount['Source']) named(String(mount['Source']), target, readOnly);
        else add({ name: '', emptyDir: {} }, target, readOnly);
        break;
      case 'tmpfs':
        add({ name: '', emptyDir: { medium: 'Memory' } }, target, readOnly);
        break;
      default:
        throw KubernetesErrors.optionUnsupported({ option: `--mount type=${String(mount['Type'])}`, why: 'use bind, volume or tmpfs' });
    }
  }
  for (const target of Object.keys((config.HostConfig?.['Tmpfs'] as Record<string, string> | undefined) ?? {})) {
    add({ name: '', emptyDir: { medium: 'Memory' } }, target, false);
  }
  const mounted = new Set(plan.mounts.map((mount) => mount.mountPath));
  for (const target of Object.keys((config['Volumes'] as Record<string, unknown> | undefined) ?? {})) {
    if (!mounted.has(target)) add({ name: '', emptyDir: {} }, target, false); // anonymous volume
  }
  return plan;
}

/** `80/tcp` → container port and protocol. */
function parsePort(spec: string): { port: number; protocol: string } {
  const [port, protocol = 'tcp'] = spec.split('/');
  const number = Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65535) {
    throw KubernetesErrors.optionInvalid({ option: '--publish', value: spec, why: 'a container port is a number from 1 to 65535' });
  }
  if (!['tcp', 'udp', 'sctp'].includes(protocol)) {
    throw KubernetesErrors.optionInvalid({ option: '--publish', value: spec, why: 'the protocol is tcp, udp or sctp' });
  }
  return { port: number, protocol: protocol.toUpperCase() };
}

/** Container ports: every exposed port, with a hostPort where docker publishes one. */
function ports(config: ContainerConfig, hostPorts: ReadonlyMap<string, number>): k8s.V1ContainerPort[] {
  const out = new Map<string, k8s.V1ContainerPort>();
  for (const spec of Object.keys(config.ExposedPorts ?? {})) {
    const { port, protocol } = parsePort(spec);
    out.set(`${port}/${protocol}`, { containerPort: port, protocol });
  }
  for (const [spec, bindings] of Object.entries(config.HostConfig?.PortBindings ?? {})) {
    const { port, protocol } = parsePort(spec);
    const list = bindings && bindings.length > 0 ? bindings : [{}];
    list.forEach((binding, index) => {
      const fixed = binding.HostPort ? Number(binding.HostPort.split('-')[0]) : undefined;
      const hostPort = fixed ?? hostPorts.get(`${port}/${protocol.toLowerCase()}`);
      const entry: k8s.V1ContainerPort = { containerPort: port, protocol };
      if (hostPort) entry.hostPort = hostPort;
      if (binding.HostIp && binding.HostIp !== '0.0.0.0' && binding.HostIp !== '::') entry.hostIP = binding.HostIp;
      out.set(index === 0 ? `${port}/${protocol}` : `${port}/${protocol}#${index}`, entry);
    });
  }
  if (config.HostConfig?.PublishAllPorts) {
    for (const [key, entry] of out) {
      if (entry.hostPort === undefined) {
        const picked = hostPorts.get(key.toLowerCase());
        if (picked) entry.hostPort = picked;
      }
    }
  }
  return [...out.values()];
}

/** The host ports docker would pick at random (`-p 80`, `-P`): container port/protocol keys. */
export function randomPortRequests(config: ContainerConfig): string[] {
  const wanted = new Set<string>();
  for (const [spec, bindings] of Object.entries(config.HostConfig?.PortBindings ?? {})) {
    const list = bindings && bindings.length > 0 ? bindings : [{}];
    if (list.some((binding) => !binding.HostPort)) wanted.add(spec.includes('/') ? spec : `${spec}/tcp`);
  }
  if (config.HostConfig?.PublishAllPorts) {
    for (const spec of Object.keys(config.ExposedPorts ?? {})) {
      const key = spec.includes('/') ? spec : `${spec}/tcp`;
      const bindings = config.HostConfig.PortBindings?.[spec];
      if (!bindings || bindings.length === 0) wanted.add(key);
    }
  }
  return [...wanted];
}

function env(config: ContainerConfig): k8s.V1EnvVar[] {
  return (config.Env ?? []).map((entry) => {
    const equals = entry.indexOf('=');
    return equals < 0 ? { name: entry, value: '' } : { name: entry.slice(0, equals), value: entry.slice(equals + 1) };
  });
}

function asList(value: string[] | string | null | undefined): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** The pod for a docker container: one container, placed by swarm, labelled as swarm's. */
export function buildPod(inputs: PodInputs): { pod: k8s.V1Pod; claims: string[] } {
  const { config } = inputs;
  refuseUnsupported(config);
  const labels: Record<string, string> = { [PodMarks.managed]: 'true' };
  for (const [key, value] of Object.entries(config.Labels ?? {})) if (validLabel(key, value)) labels[key] = value;
  for (const name of answeringNames(inputs.networks)) labels[aliasLabel(name)] = 'true';
  const volumes = plannedVolumes(config, inputs.namedVolumes);
  const container: k8s.V1Container = { name: 'container', image: config.Image, imagePullPolicy: 'IfNotPresent' };
  const command = asList(config.Entrypoint);
  if (command && command.length > 0) container.command = command;
  const args = asList(config.Cmd);
  if (args && args.length > 0) container.args = args;
  const variables = env(config);
  if (variables.length > 0) container.env = variables;
  const workingDir = config['WorkingDir'];
  if (typeof workingDir === 'string' && workingDir !== '') container.workingDir = workingDir;
  const containerPorts = ports(config, inputs.hostPorts);
  if (containerPorts.length > 0) container.ports = containerPorts;
  const limits = resources(config);
  if (limits) container.resources = limits;
  const security = securityContext(config);
  if (security) container.securityContext = security;
  if (volumes.mounts.length > 0) container.volumeMounts = volumes.mounts;
  if (config.Tty) container.tty = true;
  if (config.OpenStdin) {
    container.stdin = true;
    if (config['StdinOnce']) container.stdinOnce = true;
  }
  const stopTimeout = config['StopTimeout'];
  const spec: k8s.V1PodSpec = {
    containers: [container],
    restartPolicy: restartPolicy(config),
    schedulerName: 'swarm',
    terminationGracePeriodSeconds: typeof stopTimeout === 'number' && stopTimeout >= 0 ? stopTimeout : 10,
    enableServiceLinks: false,
    automountServiceAccountToken: false,
  };
  if (inputs.bindNow) spec.nodeName = inputs.node;
  if (volumes.volumes.length > 0) spec.volumes = volumes.volumes;
  if (config.HostConfig?.NetworkMode === 'host') spec.hostNetwork = true;
  if (typeof config.Hostname === 'string' && isDnsLabel(config.Hostname)) spec.hostname = config.Hostname;
  const extraHosts = (config.HostConfig?.['ExtraHosts'] as string[] | null | undefined) ?? [];
  if (extraHosts.length > 0) spec.hostAliases = hostAliases(extraHosts);
  const dns = dnsConfig(config);
  if (dns) spec.dnsConfig = dns;
  const pod: k8s.V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: inputs.podName,
      labels,
      annotations: {
        [PodMarks.id]: inputs.id,
        [PodMarks.name]: inputs.dockerName,
        [PodMarks.node]: inputs.node,
        [PodMarks.created]: inputs.createdAt,
        [PodMarks.config]: JSON.stringify(config),
        [PodMarks.networks]: encodeMemberships(inputs.networks),
      },
      finalizers: [PodMarks.keep],
    },
    spec,
  };
  return { pod, claims: volumes.claims };
}

function hostAliases(entries: readonly string[]): k8s.V1HostAlias[] {
  const byIp = new Map<string, string[]>();
  for (const entry of entries) {
    const separator = entry.lastIndexOf(':');
    if (separator <= 0) throw KubernetesErrors.optionInvalid({ option: '--add-host', value: entry, why: 'use HOST:IP' });
    const host = entry.slice(0, separator);
    const ip = entry.slice(separator + 1);
    byIp.set(ip, [...(byIp.get(ip) ?? []), host]);
  }
  return [...byIp].map(([ip, hostnames]) => ({ ip, hostnames }));
}

function dnsConfig(config: ContainerConfig): k8s.V1PodDNSConfig | undefined {
  const host = (config.HostConfig ?? {}) as Record<string, unknown>;
  const nameservers = (host['Dns'] as string[] | null | undefined) ?? [];
  const searches = (host['DnsSearch'] as string[] | null | undefined) ?? [];
  const options = (host['DnsOptions'] as string[] | null | undefined) ?? [];
  if (nameservers.length + searches.length + options.length === 0) return undefined;
  const out: k8s.V1PodDNSConfig = {};
  if (nameservers.length > 0) out.nameservers = nameservers;
  if (searches.length > 0) out.searches = searches;
  if (options.length > 0) {
    out.options = options.map((option) => {
      const [name, value] = option.split(':');
      return value === undefined ? { name: name! } : { name: name!, value };
    });
  }
  return out;
}
