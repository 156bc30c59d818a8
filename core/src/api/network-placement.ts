import type { Cluster, Network, NetworkInventory } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';

const SHARED_MODES = new Set(['', 'default', 'bridge', 'host', 'none']);

/** The local networks a name can mean: `node/net` names one; a bare name or ID every node's copy. */
function localNetworks(networks: NetworkInventory, reference: string): Network[] {
  const all = networks.list().filter((network) => network.name === reference || network.id === reference);
  if (all.length > 0) return all.every((network) => network.scope === 'local') ? all : [];
  const named = reference.includes('/') ? networks.find(reference) : undefined;
  return named?.scope === 'local' ? [named] : [];
}

/** The networks a create joins: its NetworkMode and (API 1.44 and later) every EndpointsConfig key. */
function joinedNetworks(config: ContainerConfig): string[] {
  const names = new Set<string>();
  const mode = config.HostConfig?.NetworkMode;
  if (typeof mode === 'string') names.add(mode);
  for (const key of Object.keys(endpointsOf(config) ?? {})) names.add(key);
  return [...names].filter((name) => !SHARED_MODES.has(name) && !name.startsWith('container:'));
}

function endpointsOf(config: ContainerConfig): Record<string, unknown> | undefined {
  return (config.NetworkingConfig as { EndpointsConfig?: Record<string, unknown> } | undefined)?.EndpointsConfig;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A hard node constraint: the one node, or any of the nodes holding a copy of the network. */
function onNodes(nodeNames: readonly string[]): string {
  const names = [...new Set(nodeNames)].sort();
  return names.length === 1 ? `constraint:node==${names[0]}` : `constraint:node==/^(${names.map(escapeRegExp).join('|')})$/`;
}

/**
 * A container joining a local network can only run where that network is: a hard node constraint
 * per local network it joins (the refusal then names it when nothing fits, e.g. the node holding
 * the network has no room), and `node/net` becomes the engine's own network name. Swarm classic
 * added a soft constraint, so a container whose network's node was full landed elsewhere and
 * could not start (`network ... not found`) after its predecessor was gone.
 */
export function placeWithNetwork(cluster: Cluster, config: ContainerConfig): ContainerConfig {
  const networks = cluster.capabilities?.networks;
  if (!networks) return config;
  const renamed = new Map<string, string>();
  const constraints: string[] = [];
  for (const reference of joinedNetworks(config)) {
    const copies = localNetworks(networks, reference);
    if (copies.length === 0) continue;
    constraints.push(onNodes(copies.map((network) => network.node.name)));
    if (copies.length === 1 && copies[0]!.name !== reference) renamed.set(reference, copies[0]!.name);
  }
  if (constraints.length === 0) return config;
  const mode = config.HostConfig?.NetworkMode;
  const hostConfig =
    typeof mode === 'string' && renamed.has(mode) ? { ...config.HostConfig, NetworkMode: renamed.get(mode) } : config.HostConfig;
  const endpoints = endpointsOf(config);
  const networkingConfig =
    endpoints && Object.keys(endpoints).some((key) => renamed.has(key))
      ? {
          ...(config.NetworkingConfig as Record<string, unknown>),
          EndpointsConfig: Object.fromEntries(Object.entries(endpoints).map(([key, value]) => [renamed.get(key) ?? key, value])),
        }
      : config.NetworkingConfig;
  const env = [...(config.Env ?? [])];
  for (const constraint of constraints) if (!env.includes(constraint)) env.push(constraint);
  return {
    ...config,
    Env: env,
    ...(hostConfig === undefined ? {} : { HostConfig: hostConfig }),
    ...(networkingConfig === undefined ? {} : { NetworkingConfig: networkingConfig }),
  };
}
