import type { Cluster, Network, NetworkInventory, Node } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { describe, expect, it } from 'vitest';
import { placeWithNetwork } from '../dist/api/network-placement.js';
import { listsEngineNames, projectNetworkNode } from '../dist/api/compose-project.js';

function network(nodeName: string, name: string, scope = 'local', labels: Record<string, string> = {}, healthy = true): Network {
  const node = { name: nodeName, id: `id-${nodeName}`, isHealthy: () => healthy } as Node;
  return {
    id: `${nodeName}-${name}-id`,
    name,
    scope,
    node,
    summary: { Name: name, Id: `${nodeName}-${name}-id`, Labels: labels },
  } as Network;
}

/** The inventory's rules as the swarm driver has them: ID, a name held once, or `node/name`. */
function inventory(networks: Network[]): NetworkInventory {
  return {
    list: () => networks,
    find: (reference) => {
      const byName = networks.filter((n) => n.id === reference || n.name === reference);
      if (byName.length === 1) return byName[0];
      return networks.find((n) => `${n.node.name}/${n.name}` === reference);
    },
  };
}

const clusterWith = (networks: Network[]) => ({ capabilities: { networks: inventory(networks) } }) as unknown as Cluster;

const NETWORKS = [
  network('node1', 'front'),
  network('node1', 'back'),
  network('node2', 'other'),
  network('node1', 'shared'),
  network('node2', 'shared'),
  network('node1', 'ingress', 'swarm'),
];

const create = (mode: string, endpoints?: string[], env?: string[]): ContainerConfig => ({
  Image: 'busybox',
  ...(env ? { Env: env } : {}),
  HostConfig: { NetworkMode: mode },
  ...(endpoints ? { NetworkingConfig: { EndpointsConfig: Object.fromEntries(endpoints.map((name) => [name, { Aliases: [name] }])) } } : {}),
});

describe('a container on local networks is placed where they are', () => {
  it('a network held by one node is a hard constraint on that node', () => {
    expect(placeWithNetwork(clusterWith(NETWORKS), create('front')).Env).toEqual(['constraint:node==node1']);
  });

  it('node/net becomes the engine’s own name, in the mode and the endpoints', () => {
    const placed = placeWithNetwork(clusterWith(NETWORKS), create('node2/shared', ['node2/shared']));
    expect(placed.HostConfig?.NetworkMode).toBe('shared');
    expect(Object.keys((placed.NetworkingConfig as { EndpointsConfig: object }).EndpointsConfig)).toEqual(['shared']);
    expect(placed.Env).toEqual(['constraint:node==node2']);
  });

  it('every network of an API 1.44 create counts: networks on two nodes can fit nowhere', () => {
    expect(placeWithNetwork(clusterWith(NETWORKS), create('front', ['front', 'back'])).Env).toEqual(['constraint:node==node1']);
    expect(placeWithNetwork(clusterWith(NETWORKS), create('front', ['front', 'other'])).Env).toEqual([
      'constraint:node==node1',
      'constraint:node==node2',
    ]);
  });

  it('a name several nodes hold allows any of them; the user’s own constraints stay', () => {
    expect(placeWithNetwork(clusterWith(NETWORKS), create('shared', undefined, ['constraint:node==node2'])).Env).toEqual([
      'constraint:node==node2',
      'constraint:node==/^(node1|node2)$/',
    ]);
  });

  it('shared modes, container: modes, wider scopes and unknown names add nothing', () => {
    for (const mode of ['bridge', 'host', 'none', 'default', 'container:abc', 'ingress', 'nowhere']) {
      const config = create(mode);
      expect(placeWithNetwork(clusterWith(NETWORKS), config)).toBe(config);
    }
  });
});

describe("Compose's project label", () => {
  it('asks for engine names only in a list by the project label', () => {
    expect(listsEngineNames(new Map([['label', ['com.docker.compose.project=px']]]))).toBe(true);
    expect(listsEngineNames(new Map([['label', ['com.docker.compose.project']]]))).toBe(true);
    expect(listsEngineNames(new Map([['label', ['com.docker.compose.projectx=px']]]))).toBe(false);
    expect(listsEngineNames(new Map([['name', ['com.docker.compose.project=px']]]))).toBe(false);
    expect(listsEngineNames(new Map())).toBe(false);
  });

  it("puts a project's new network beside its others, on a healthy node", () => {
    const labels = { 'com.docker.compose.project': 'px' };
    const networks = inventory([
      network('node1', 'qx_a', 'local', { 'com.docker.compose.project': 'qx' }),
      network('node3', 'px_a', 'local', labels),
    ]);
    expect(projectNetworkNode(networks, [], labels)).toBe('node3');
    expect(projectNetworkNode(networks, [], { 'com.docker.compose.project': 'new' })).toBeUndefined();
    expect(projectNetworkNode(networks, [], undefined)).toBeUndefined();
    expect(projectNetworkNode(inventory([network('node3', 'px_a', 'local', labels, false)]), [], labels)).toBeUndefined();
  });

  it("puts a project's first network where its built images are", () => {
    const labels = { 'com.docker.compose.project': 'px' };
    const holding = (name: string, tags: string[], healthy = true) =>
      ({ name, isHealthy: () => healthy, images: () => tags.map((tag) => ({ repoTags: [tag] })) }) as unknown as Node;
    const nodes = [holding('node1', ['busybox:local']), holding('node2', ['px-app:latest'], false), holding('node3', ['px-app:latest'])];
    expect(projectNetworkNode(inventory([]), nodes, labels)).toBe('node3');
    expect(projectNetworkNode(inventory([]), nodes.slice(0, 2), labels)).toBeUndefined();
  });
});
