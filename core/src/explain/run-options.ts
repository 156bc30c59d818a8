import type { ContainerConfig, PortBinding } from '@swarm/plugin-sdk/docker';
import { CoreErrors } from '../errors.js';
import { parseMemory } from '../config/size.js';

/** The `docker run` options `swarm schedule --explain` understands. */
export interface RunOptions {
  env?: string[];
  memory?: string;
  cpuShares?: string;
  publish?: string[];
  label?: string[];
  net?: string;
  link?: string[];
  volumesFrom?: string[];
}

/** `-p [ip:][hostPort:]containerPort[/proto]`. */
export function parsePublish(spec: string): { port: string; binding: PortBinding } {
  const [address, proto = 'tcp'] = spec.split('/');
  const parts = address!.split(':');
  const containerPort = parts.pop();
  if (!containerPort || !/^\d+$/.test(containerPort)) throw CoreErrors.cliPortSpecInvalid({ spec });
  const hostPort = parts.pop() ?? '';
  const hostIp = parts.join(':');
  return { port: `${containerPort}/${proto}`, binding: { HostIp: hostIp, HostPort: hostPort } };
}

function labels(list: readonly string[] | undefined): Record<string, string> | undefined {
  if (!list || list.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of list) {
    const index = item.indexOf('=');
    if (index === -1) out[item] = '';
    else out[item.slice(0, index)] = item.slice(index + 1);
  }
  return out;
}

/** The `POST /containers/create` body `docker run` would send for these options. */
export function buildContainerConfig(image: string, cmd: readonly string[], options: RunOptions): ContainerConfig {
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, PortBinding[]> = {};
  for (const spec of options.publish ?? []) {
    const { port, binding } = parsePublish(spec);
    exposed[port] = {};
    (bindings[port] ??= []).push(binding);
  }
  const config: ContainerConfig = {
    Image: image,
    Cmd: cmd.length > 0 ? [...cmd] : null,
    Env: options.env ?? [],
    Labels: labels(options.label) ?? {},
    ExposedPorts: exposed,
    HostConfig: {
      CpuShares: options.cpuShares === undefined ? 0 : Number(options.cpuShares),
      Memory: options.memory === undefined ? 0 : parseMemory(options.memory),
      PortBindings: bindings,
      NetworkMode: options.net ?? 'default',
      Links: options.link ?? [],
      VolumesFrom: options.volumesFrom ?? [],
    },
  };
  if (Number.isNaN(config.HostConfig!.CpuShares)) throw CoreErrors.cliCpuSharesInvalid({ value: String(options.cpuShares) });
  return config;
}
