import type * as k8s from '@kubernetes/client-node';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { PodMarks } from './labels.js';
import { isDnsLabel } from './pod-names.js';

/**
 * The docker networks a container is on, each with the names it answers to there (its own name and
 * its aliases). Kept on the pod (annotation `swarm.io/networks`) because `network connect` and
 * `disconnect` change it after the create config was written, and the alias Services a name needs
 * are released only when no container answers to it on any network any more.
 */
export type Memberships = ReadonlyMap<string, readonly string[]>;

/** Docker's predefined networks: names resolve on user-defined networks only. */
const PREDEFINED = new Set(['bridge', 'host', 'none']);

export const isUserDefined = (network: string): boolean => !PREDEFINED.has(network) && !network.startsWith('container:');

type Endpoints = Record<string, { Aliases?: readonly string[] | null } | null>;

/** The network a create config puts the container on (`default` is the bridge). */
function primaryNetwork(config: ContainerConfig): string {
  const mode = String(config.HostConfig?.NetworkMode ?? '');
  return mode === '' || mode === 'default' ? 'bridge' : mode;
}

/** What `docker create` sets up: the NetworkMode network and every endpoint of NetworkingConfig. */
export function membershipsAtCreate(config: ContainerConfig, dockerName: string): Map<string, string[]> {
  const endpoints = ((config['NetworkingConfig'] as { EndpointsConfig?: Endpoints } | undefined)?.EndpointsConfig ?? {}) as Endpoints;
  const memberships = new Map<string, string[]>();
  const join = (network: string, aliases: readonly string[] | null | undefined) => {
    if (network === 'host' || network === 'none' || network.startsWith('container:')) return;
    const names = isUserDefined(network) ? [dockerName, ...(aliases ?? [])] : [];
    memberships.set(network, unique([...(memberships.get(network) ?? []), ...names]));
  };
  const primary = primaryNetwork(config);
  join(primary, endpoints[primary]?.Aliases);
  for (const [network, endpoint] of Object.entries(endpoints)) if (network !== primary) join(network, endpoint?.Aliases);
  return memberships;
}

/** The memberships recorded on a pod; a pod made before they were recorded gets its create config's. */
export function membershipsOf(pod: k8s.V1Pod, config: ContainerConfig, dockerName: string): Map<string, string[]> {
  const recorded = pod.metadata?.annotations?.[PodMarks.networks];
  if (recorded) {
    try {
      const parsed = JSON.parse(recorded) as Record<string, unknown>;
      return new Map(
        Object.entries(parsed).map(([network, names]) => [network, Array.isArray(names) ? names.map(String) : []] as [string, string[]]),
      );
    } catch {
      // a hand-edited annotation: what the container was created with is the best guess left
    }
  }
  return membershipsAtCreate(config, dockerName);
}

export const encodeMemberships = (memberships: Memberships): string => JSON.stringify(Object.fromEntries(memberships));

/** Every name the container answers to, on any network, that can be a pod label (a DNS label). */
export function answeringNames(memberships: Memberships): string[] {
  return unique([...memberships.values()].flat()).filter(isDnsLabel);
}

/** The alias names a pod carries labels for: what its Services were made for. */
export function labelledNames(pod: k8s.V1Pod): string[] {
  return Object.entries(pod.metadata?.labels ?? {})
    .filter(([key, value]) => key.startsWith(PodMarks.aliasPrefix) && value === 'true')
    .map(([key]) => key.slice(PodMarks.aliasPrefix.length));
}

export const aliasLabel = (name: string): string => `${PodMarks.aliasPrefix}${name}`;

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}
