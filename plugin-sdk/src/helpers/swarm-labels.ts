import type { ContainerConfig } from '../types/docker.js';

export const SWARM_LABEL_NAMESPACE = 'com.docker.swarm';

/** Labels swarm reads and writes on containers, as Swarm classic names them. */
export const SwarmLabels = {
  id: `${SWARM_LABEL_NAMESPACE}.id`,
  constraints: `${SWARM_LABEL_NAMESPACE}.constraints`,
  affinities: `${SWARM_LABEL_NAMESPACE}.affinities`,
  whitelists: `${SWARM_LABEL_NAMESPACE}.whitelists`,
  reschedulePolicies: `${SWARM_LABEL_NAMESPACE}.reschedule-policies`,
} as const;

export type SwarmDirective = 'constraints' | 'affinities' | 'whitelists' | 'reschedulePolicies';

/** `-e constraint:x` style env prefixes and the label list each one feeds. */
const ENV_DIRECTIVES: Readonly<Record<string, SwarmDirective>> = {
  constraint: 'constraints',
  affinity: 'affinities',
  whitelist: 'whitelists',
  reschedule: 'reschedulePolicies',
};

const ENV_DIRECTIVE = /^(constraint|affinity|whitelist|reschedule):(.+)$/;

function readJsonList(raw: string | undefined): string[] {
  if (raw === undefined || raw === '') return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** The expressions stored in a swarm label list (`com.docker.swarm.constraints`, ...). */
export function swarmDirectives(config: ContainerConfig, directive: SwarmDirective): string[] {
  return readJsonList(config.Labels?.[SwarmLabels[directive]]);
}

/**
 * Move `-e constraint:...`, `-e affinity:...`, `-e whitelist:...` and `-e reschedule:...` out of
 * Env into the JSON-array labels, after any list already given as a label (Swarm classic's
 * BuildContainerConfig). Returns a new config; the input is not modified.
 */
export function moveEnvDirectivesToLabels(config: ContainerConfig): ContainerConfig {
  const lists: Record<SwarmDirective, string[]> = {
    constraints: swarmDirectives(config, 'constraints'),
    affinities: swarmDirectives(config, 'affinities'),
    whitelists: swarmDirectives(config, 'whitelists'),
    reschedulePolicies: swarmDirectives(config, 'reschedulePolicies'),
  };
  const env: string[] = [];
  let moved = false;
  for (const entry of config.Env ?? []) {
    const match = ENV_DIRECTIVE.exec(entry);
    const directive = match ? ENV_DIRECTIVES[match[1]!] : undefined;
    if (match && directive) {
      lists[directive].push(match[2]!);
      moved = true;
    } else {
      env.push(entry);
    }
  }
  if (!moved) return config;
  const labels: Record<string, string> = { ...(config.Labels ?? {}) };
  for (const directive of Object.keys(lists) as SwarmDirective[]) {
    const list = lists[directive];
    if (list.length > 0) labels[SwarmLabels[directive]] = JSON.stringify(list);
  }
  return { ...config, Env: env, Labels: labels };
}

/** CPUs a config asks for: Swarm classic reads `CpuShares` as a number of CPUs. */
export function requestedCpus(config: ContainerConfig): number {
  const shares = config.HostConfig?.CpuShares;
  return typeof shares === 'number' && shares > 0 ? shares : 0;
}

/** Bytes of memory a config asks for. */
export function requestedMemory(config: ContainerConfig): number {
  const memory = config.HostConfig?.Memory;
  return typeof memory === 'number' && memory > 0 ? memory : 0;
}
