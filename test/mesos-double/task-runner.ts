import { randomUUID } from 'node:crypto';
import type Docker from 'dockerode';
import type { TaskInfoJson } from './types.js';

/** Labels the double keeps on task containers, so a newly elected master recovers its tasks. */
export const DOUBLE_LABEL = 'org.apache.mesos.double.task';

export interface TaskMeta {
  taskId: string;
  frameworkId: string;
  agentId: string;
  cpus: number;
  mem: number;
  ports: number[];
}

function scalarOf(task: TaskInfoJson, name: string): number {
  return (task.resources ?? [])
    .filter((resource) => resource.name === name)
    .reduce((sum, resource) => sum + (resource.scalar?.value ?? 0), 0);
}

export function portsOf(task: TaskInfoJson): number[] {
  const ports: number[] = [];
  for (const resource of task.resources ?? []) {
    if (resource.name !== 'ports') continue;
    for (const range of resource.ranges?.range ?? []) for (let port = range.begin; port <= range.end; port++) ports.push(port);
  }
  return ports;
}

export function taskResources(task: TaskInfoJson): { cpus: number; mem: number; ports: number[] } {
  return { cpus: scalarOf(task, 'cpus'), mem: scalarOf(task, 'mem'), ports: portsOf(task) };
}

/** The `docker create` body the Docker containerizer derives from a TaskInfo. */
function createOptions(task: TaskInfoJson, meta: TaskMeta): Docker.ContainerCreateOptions {
  const docker = task.container?.docker ?? {};
  const command = task.command ?? {};
  const env: string[] = (command.environment?.variables ?? []).map((variable) => `${variable.name}=${variable.value}`);
  const labels: Record<string, string> = { [DOUBLE_LABEL]: JSON.stringify(meta) };
  const options: Docker.ContainerCreateOptions = { name: `mesos-${randomUUID()}`, Image: docker.image ?? '' };
  const hostConfig: Docker.HostConfig = {};
  for (const { key, value } of docker.parameters ?? []) {
    if (key === 'env') env.push(value);
    else if (key === 'label')
      labels[value.slice(0, value.indexOf('=') < 0 ? value.length : value.indexOf('='))] =
        value.indexOf('=') < 0 ? '' : value.slice(value.indexOf('=') + 1);
    else if (key === 'hostname') options.Hostname = value;
    else if (key === 'workdir') options.WorkingDir = value;
    else if (key === 'user') options.User = value;
    else if (key === 'entrypoint') options.Entrypoint = [value];
    else if (key === 'tty') options.Tty = value === 'true';
    else if (key === 'interactive') options.OpenStdin = value === 'true';
  }
  if (command.shell) options.Cmd = ['/bin/sh', '-c', command.value ?? ''];
  else {
    const argv = [...(command.value ? [command.value] : []), ...(command.arguments ?? [])];
    if (argv.length > 0) options.Cmd = argv;
  }
  options.Env = env;
  options.Labels = labels;
  const network = docker.network ?? 'HOST';
  hostConfig.NetworkMode = network === 'BRIDGE' ? 'bridge' : network === 'NONE' ? 'none' : 'host';
  if (meta.mem > 0) hostConfig.Memory = Math.round(meta.mem * 1024 * 1024);
  if (meta.cpus > 0) hostConfig.CpuShares = Math.max(2, Math.round(meta.cpus * 1024));
  const exposed: Record<string, object> = {};
  const bindings: Record<string, Array<{ HostPort: string }>> = {};
  for (const mapping of docker.port_mappings ?? []) {
    const key = `${mapping.container_port}/${mapping.protocol ?? 'tcp'}`;
    exposed[key] = {};
    (bindings[key] ??= []).push({ HostPort: String(mapping.host_port) });
  }
  if (Object.keys(bindings).length > 0) {
    options.ExposedPorts = exposed;
    hostConfig.PortBindings = bindings;
  }
  options.HostConfig = hostConfig;
  return options;
}

/** Create and start the task's container; returns its `docker inspect` (as the Docker executor reports it). */
export async function runTask(docker: Docker, task: TaskInfoJson, meta: TaskMeta): Promise<{ containerId: string; inspect: unknown }> {
  const container = await docker.createContainer(createOptions(task, meta));
  await container.start();
  return { containerId: container.id, inspect: await container.inspect() };
}

export async function killTask(docker: Docker, containerId: string, graceSeconds?: number): Promise<void> {
  const container = docker.getContainer(containerId);
  await (graceSeconds === undefined ? container.kill() : container.stop({ t: graceSeconds })).catch((error: { statusCode?: number }) => {
    // 304: stopped already; 409: not running; 404: gone
    if (error.statusCode !== 304 && error.statusCode !== 409 && error.statusCode !== 404) throw error;
  });
}

/** `docker rm -f` of an ended task's container (the containerizer's cleanup); gone already is fine. */
export async function removeTaskContainer(docker: Docker, containerId: string): Promise<void> {
  await docker
    .getContainer(containerId)
    .remove({ force: true })
    .catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404 && error.statusCode !== 409) throw error;
    });
}

/** running | exited:<code> | gone */
export async function containerState(docker: Docker, containerId: string): Promise<string> {
  try {
    const inspect = await docker.getContainer(containerId).inspect();
    return inspect.State.Running ? 'running' : `exited:${inspect.State.ExitCode}`;
  } catch (error) {
    return (error as { statusCode?: number }).statusCode === 404 ? 'gone' : 'running';
  }
}

/** Task containers already on an engine (a new leader learns them as agents re-register). */
export async function recoverTasks(docker: Docker): Promise<Array<{ meta: TaskMeta; containerId: string; running: boolean }>> {
  const containers = await docker.listContainers({ all: true, filters: { label: [DOUBLE_LABEL] } });
  return containers.map((summary) => ({
    meta: JSON.parse(summary.Labels[DOUBLE_LABEL] ?? '{}') as TaskMeta,
    containerId: summary.Id,
    running: summary.State === 'running',
  }));
}
