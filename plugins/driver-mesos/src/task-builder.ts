import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { requestedCpus, requestedMemory } from '@swarm/plugin-sdk/helpers';
import { MesosLabels } from './labels.js';
import type { Offer, Parameter, PortMapping, TaskInfo } from './protocol.js';
import { portRanges, portsResource, scalar } from './resources.js';
import { MesosErrors } from './errors.js';

function network(config: ContainerConfig): TaskInfo['container']['docker']['network'] {
  const mode = config.HostConfig?.NetworkMode;
  if (mode === 'host') return 'HOST';
  if (mode === 'none') return 'NONE';
  return 'BRIDGE';
}

/** Host ports for the config's port bindings: the asked one, or the next free one of the offers' ranges. */
function portMappings(config: ContainerConfig, offers: readonly Offer[]): PortMapping[] {
  const free: number[] = [];
  for (const range of portRanges(offers)) for (let port = range.begin; port <= range.end && free.length < 4096; port++) free.push(port);
  const used = new Set<number>();
  const mappings: PortMapping[] = [];
  for (const [containerPort, bindings] of Object.entries(config.HostConfig?.PortBindings ?? {})) {
    const [portText, protocol = 'tcp'] = containerPort.split('/');
    for (const binding of bindings ?? [{}]) {
      let hostPort = Number(binding.HostPort ?? 0);
      if (!hostPort) {
        const next = free.find((port) => !used.has(port));
        if (next === undefined) throw MesosErrors.noPortInOffers();
        hostPort = next;
      }
      used.add(hostPort);
      mappings.push({ host_port: hostPort, container_port: Number(portText), protocol });
    }
  }
  return mappings;
}

function parameters(config: ContainerConfig, taskId: string, name: string | undefined, detach: boolean): Parameter[] {
  const list: Parameter[] = [];
  for (const entry of config.Env ?? []) list.push({ key: 'env', value: entry });
  const labels: Record<string, string> = { ...(config.Labels ?? {}), [MesosLabels.task]: taskId };
  if (name) labels[MesosLabels.name] = name;
  if (detach) labels[MesosLabels.detach] = 'true';
  for (const [key, value] of Object.entries(labels)) list.push({ key: 'label', value: `${key}=${value}` });
  if (config.Hostname) list.push({ key: 'hostname', value: config.Hostname });
  if (typeof config.WorkingDir === 'string' && config.WorkingDir) list.push({ key: 'workdir', value: config.WorkingDir });
  if (typeof config.User === 'string' && config.User) list.push({ key: 'user', value: config.User });
  const entrypoint = config.Entrypoint;
  if (Array.isArray(entrypoint) && entrypoint.length > 0) list.push({ key: 'entrypoint', value: entrypoint[0]! });
  else if (typeof entrypoint === 'string' && entrypoint) list.push({ key: 'entrypoint', value: entrypoint });
  if (config.Tty) list.push({ key: 'tty', value: 'true' });
  if (config.OpenStdin) list.push({ key: 'interactive', value: 'true' });
  return list;
}

export interface TaskSpec {
  taskId: string;
  name: string | undefined;
  config: ContainerConfig;
  agentId: string;
  offers: readonly Offer[];
  role: string;
}

/** A Docker task for the chosen agent's offers, as Swarm classic builds it. */
export function buildTaskInfo(spec: TaskSpec): TaskInfo {
  const { config } = spec;
  const cpus = requestedCpus(config);
  const memoryMiB = requestedMemory(config) / (1024 * 1024);
  const resources = [];
  if (cpus > 0) resources.push(scalar('cpus', cpus, spec.role));
  if (memoryMiB > 0) resources.push(scalar('mem', memoryMiB, spec.role));
  const mappings = network(config) === 'BRIDGE' ? portMappings(config, spec.offers) : [];
  if (mappings.length > 0)
    resources.push(
      portsResource(
        mappings.map((mapping) => mapping.host_port),
        spec.role,
      ),
    );
  const cmd = config.Cmd ?? [];
  const detach = !config.AttachStdout && !config.AttachStderr && !config.AttachStdin;
  const command: TaskInfo['command'] = cmd.length > 0 ? { shell: false, value: cmd[0]!, arguments: cmd.slice(1) } : { shell: false };
  const docker: TaskInfo['container']['docker'] = {
    image: config.Image,
    network: network(config),
    parameters: parameters(config, spec.taskId, spec.name, detach),
  };
  if (mappings.length > 0) docker.port_mappings = mappings;
  return {
    name: spec.name ?? config.Image,
    task_id: { value: spec.taskId },
    agent_id: { value: spec.agentId },
    resources,
    command,
    container: { type: 'DOCKER', docker },
  };
}
