import type { Cluster, Network, NetworkInventory } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { swarmDirectives } from '@swarm/plugin-sdk/helpers';

const SHARED_MODES = new Set(['', 'default', 'bridge', 'host', 'none']);

function hasNodeConstraint(config: ContainerConfig): boolean {
  const fromEnv = (config.Env ?? []).some((entry) => /^constraint:node\s*(==|!=)/.test(entry));
  return fromEnv || swarmDirectives(config, 'constraints').some((expression) => /^node\s*(==|!=)/.test(expression));
}

/** The one local network a mode names (`net` held by a single node, or `node/net`). */
function localNetwork(networks: NetworkInventory, mode: string): Network | undefined {
  const slash = mode.indexOf('/');
  if (slash > 0) {
    const network = networks.find(mode);
    return network?.scope === 'local' ? network : undefined;
  }
  const matches = networks.list().filter((network) => network.name === mode || network.id === mode);
  if (matches.length === 0 || matches.some((network) => network.scope !== 'local')) return undefined;
  const nodes = new Set(matches.map((network) => network.node.id));
  return nodes.size === 1 ? matches[0] : undefined;
}

/**
 * Swarm classic: a container joining a network that exists on one node only must run on that
 * node, so a soft node constraint is added (unless the user set one), and `node/net` becomes the
 * engine's own network name.
 */
export function placeWithNetwork(cluster: Cluster, config: ContainerConfig): ContainerConfig {
  const mode = config.HostConfig?.NetworkMode;
  if (typeof mode !== 'string' || SHARED_MODES.has(mode) || mode.startsWith('container:')) return config;
  const networks = cluster.capabilities?.networks;
  const network = networks && localNetwork(networks, mode);
  if (!network) return config;
  const hostConfig = { ...config.HostConfig, NetworkMode: network.name };
  const endpoints = (config.NetworkingConfig as { EndpointsConfig?: Record<string, unknown> } | undefined)?.EndpointsConfig;
  const networkingConfig =
    endpoints && mode !== network.name && endpoints[mode] !== undefined
      ? {
          ...(config.NetworkingConfig as Record<string, unknown>),
          EndpointsConfig: Object.fromEntries(Object.entries(endpoints).map(([key, value]) => [key === mode ? network.name : key, value])),
        }
      : config.NetworkingConfig;
  const env = hasNodeConstraint(config) ? config.Env : [...(config.Env ?? []), `constraint:node==~${network.node.name}`];
  return { ...config, Env: env, HostConfig: hostConfig, ...(networkingConfig === undefined ? {} : { NetworkingConfig: networkingConfig }) };
}
