// Docker create bodies for a pod, as dockershim made them: a sandbox ("pause") container that
// owns the pod's network (hostPorts, DNS, hostname), and one container per pod container joined
// to it, with the pod spec's command, env, working dir, security context, limits and mounts.
import type { ContainerCreateOptions } from 'dockerode';
import { milliValue } from '../model/quantity.js';
import type { KObject } from '../store/store.js';
import { memoryBytes } from './env.js';
import type { Loose } from '../model/loose.js';

export const LABEL_POD_NAME = 'io.kubernetes.pod.name';
export const LABEL_POD_NAMESPACE = 'io.kubernetes.pod.namespace';
export const LABEL_POD_UID = 'io.kubernetes.pod.uid';
export const LABEL_CONTAINER_NAME = 'io.kubernetes.container.name';
export const LABEL_TYPE = 'io.kubernetes.docker.type';
export const LABEL_RESTART_COUNT = 'io.kubernetes.container.restartCount';
export const LABEL_NODE = 'k8s-double.node';

export interface DnsSettings {
  nameserver: string;
  clusterDomain: string;
}

const baseLabels = (pod: KObject, node: string): Record<string, string> => ({
  [LABEL_POD_NAME]: pod.metadata.name,
  [LABEL_POD_NAMESPACE]: pod.metadata.namespace!,
  [LABEL_POD_UID]: pod.metadata.uid!,
  [LABEL_NODE]: node,
});

/** Docker container names are limited; long pod names are cut as dockershim's were not, but engines refuse > 255. */
const cut = (name: string) => name.slice(0, 250);

export function sandboxName(pod: KObject, attempt: number): string {
  return cut(`k8s_POD_${pod.metadata.name}_${pod.metadata.namespace}_${pod.metadata.uid}_${attempt}`);
}

export function containerName(pod: KObject, container: string, restartCount: number): string {
  return cut(`k8s_${container}_${pod.metadata.name}_${pod.metadata.namespace}_${pod.metadata.uid}_${restartCount}`);
}

function dnsOptions(pod: KObject, dns: DnsSettings | undefined): Partial<ContainerCreateOptions['HostConfig']> {
  const spec = pod.spec as Loose;
  const policy = spec.dnsPolicy as string;
  const config = (spec.dnsConfig ?? {}) as Loose;
  let servers: string[] = [];
  let searches: string[] = [];
  let options: string[] = [];
  const clusterFirst = policy === 'ClusterFirstWithHostNet' || (policy === 'ClusterFirst' && !spec.hostNetwork);
  if (clusterFirst && dns) {
    const namespace = pod.metadata.namespace!;
    servers = [dns.nameserver];
    searches = [`${namespace}.svc.${dns.clusterDomain}`, `svc.${dns.clusterDomain}`, dns.clusterDomain];
    options = ['ndots:5'];
  }
  servers.push(...((config.nameservers ?? []) as string[]));
  searches.push(...((config.searches ?? []) as string[]));
  for (const option of (config.options ?? []) as Loose[])
    options.push(option.value !== undefined ? `${option.name}:${option.value}` : option.name);
  const out: Partial<ContainerCreateOptions['HostConfig']> = {};
  if (servers.length) out.Dns = servers;
  if (searches.length) out.DnsSearch = searches;
  if (options.length) out.DnsOptions = options;
  return out;
}

export function sandboxConfig(
  pod: KObject,
  node: string,
  attempt: number,
  pauseImage: string,
  dns: DnsSettings | undefined,
): ContainerCreateOptions {
  const spec = pod.spec as Loose;
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
  if (!spec.hostNetwork) {
    for (const container of (spec.containers ?? []) as Loose[]) {
      for (const port of (container.ports ?? []) as Loose[]) {
        if (!port.hostPort) continue;
        const key = `${port.containerPort}/${String(port.protocol ?? 'TCP').toLowerCase()}`;
        exposed[key] = {};
        (bindings[key] ??= []).push({ HostIp: port.hostIP ?? '', HostPort: String(port.hostPort) });
      }
    }
  }
  const hostname = ((spec.hostname as string | undefined) ?? pod.metadata.name).slice(0, 63).replace(/[.-]+$/, '');
  return {
    name: sandboxName(pod, attempt),
    Image: pauseImage,
    // pause: sleep until killed, and exit at once on SIGTERM
    Cmd: ['sh', '-c', 'trap "exit 0" TERM INT; while true; do sleep 3600 & wait $!; done'],
    Hostname: spec.hostNetwork ? undefined : hostname,
    Domainname:
      spec.subdomain && dns && !spec.hostNetwork ? `${spec.subdomain}.${pod.metadata.namespace}.svc.${dns.clusterDomain}` : undefined,
    Labels: {
      ...baseLabels(pod, node),
      [LABEL_CONTAINER_NAME]: 'POD',
      [LABEL_TYPE]: 'podsandbox',
      'io.kubernetes.sandbox.attempt': String(attempt),
    },
    ExposedPorts: exposed,
    HostConfig: {
      NetworkMode: spec.hostNetwork ? 'host' : 'bridge',
      PortBindings: bindings,
      IpcMode: spec.hostIPC ? 'host' : 'shareable',
      PidMode: spec.hostPID ? 'host' : undefined,
      ExtraHosts: ((spec.hostAliases ?? []) as Loose[]).flatMap((alias) =>
        ((alias.hostnames ?? []) as string[]).map((host) => `${host}:${alias.ip}`),
      ),
      ...dnsOptions(pod, dns),
    },
  };
}

export interface ContainerConfigInput {
  pod: KObject;
  container: Loose;
  node: string;
  sandboxId: string;
  restartCount: number;
  env: string[];
  binds: string[];
}

export function containerConfig(input: ContainerConfigInput): ContainerCreateOptions {
  const { pod, container, sandboxId } = input;
  const spec = pod.spec as Loose;
  const podSecurity = (spec.securityContext ?? {}) as Loose;
  const security = (container.securityContext ?? {}) as Loose;
  const user = security.runAsUser ?? podSecurity.runAsUser;
  const group = security.runAsGroup ?? podSecurity.runAsGroup;
  const limits = (container.resources?.limits ?? {}) as Record<string, string>;
  const requests = (container.resources?.requests ?? {}) as Record<string, string>;
  const cpuRequest = requests.cpu ? milliValue(requests.cpu) : 0;
  const cpuLimit = limits.cpu ? milliValue(limits.cpu) : 0;
  const shareProcesses = spec.shareProcessNamespace === true;
  const config: ContainerCreateOptions = {
    name: containerName(pod, container.name, input.restartCount),
    Image: container.image,
    Env: input.env,
    WorkingDir: container.workingDir,
    Tty: Boolean(container.tty),
    OpenStdin: Boolean(container.stdin),
    StdinOnce: Boolean(container.stdinOnce),
    AttachStdin: Boolean(container.stdin),
    AttachStdout: true,
    AttachStderr: true,
    Labels: {
      ...baseLabels(pod, input.node),
      [LABEL_CONTAINER_NAME]: container.name,
      [LABEL_TYPE]: 'container',
      [LABEL_RESTART_COUNT]: String(input.restartCount),
      'io.kubernetes.sandbox.id': sandboxId,
    },
    HostConfig: {
      NetworkMode: `container:${sandboxId}`,
      IpcMode: `container:${sandboxId}`,
      PidMode: spec.hostPID ? 'host' : shareProcesses ? `container:${sandboxId}` : undefined,
      Binds: input.binds,
      Privileged: Boolean(security.privileged),
      CapAdd: security.capabilities?.add,
      CapDrop: security.capabilities?.drop,
      ReadonlyRootfs: Boolean(security.readOnlyRootFilesystem),
      SecurityOpt: security.allowPrivilegeEscalation === false ? ['no-new-privileges'] : undefined,
      Memory: memoryBytes(limits.memory),
      // requests → CPU shares (1024 per CPU, at least 2), limits → a CFS quota per 100 ms period
      CpuShares: cpuRequest ? Math.max(2, Math.floor((cpuRequest * 1024) / 1000)) : 2,
      CpuPeriod: cpuLimit ? 100_000 : undefined,
      CpuQuota: cpuLimit ? Math.max(1000, cpuLimit * 100) : undefined,
    },
  };
  if (container.command?.length) config.Entrypoint = container.command;
  if (container.args?.length) config.Cmd = container.args;
  else if (container.command?.length) config.Cmd = [];
  if (user !== undefined) config.User = group !== undefined ? `${user}:${group}` : String(user);
  else if (group !== undefined) config.User = `0:${group}`;
  return config;
}
