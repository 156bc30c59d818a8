import type { BuildPlacement, Network, NetworkInventory, NetworkManagement } from '@swarm/plugin-sdk';
import type { NetworkCreateRequest } from '@swarm/plugin-sdk/docker';
import type { EnginePool } from './engine-pool.js';
import { SwarmErrors } from './errors.js';
import { splitNodePrefix } from './node-reference.js';

/** The networks of every engine; a network is created on one engine. */
export class SwarmNetworks implements NetworkInventory, NetworkManagement {
  constructor(
    private readonly pool: EnginePool,
    private readonly placement: BuildPlacement,
  ) {}

  list(): readonly Network[] {
    return this.pool.nodes().flatMap((node) => node.networks());
  }

  /** Swarm classic's Networks.Get: full ID, unique name, `node/name`, unique ID prefix. */
  find(reference: string): Network | undefined {
    if (reference === '') return undefined;
    const nodes = this.pool.nodes();
    const all = nodes.flatMap((node) => node.networks());
    const byId = all.find((network) => network.id === reference);
    if (byId) return byId;
    const byName = all.filter((network) => network.name === reference);
    // a global-scope network shows up on every engine with the same ID: that is one network
    if (byName.length > 0) return new Set(byName.map((network) => network.id)).size === 1 ? byName[0] : undefined;
    const { node, name } = splitNodePrefix(nodes, reference);
    const onNode = node?.networks().find((network) => network.name === name);
    if (onNode) return onNode;
    const byPrefix = all.filter((network) => network.id.startsWith(reference));
    return new Set(byPrefix.map((network) => network.id)).size === 1 ? byPrefix[0] : undefined;
  }

  /** On the node named by a `node/` prefix, else on the node the scheduler picks (Swarm classic). */
  async create(request: NetworkCreateRequest): Promise<Network> {
    const { node: named, name } = splitNodePrefix(this.pool.schedulable(), request.Name);
    const node = named ?? (await this.placement.place({ Image: '' }));
    const monitor = this.pool.of(node);
    const { Id } = await monitor.api.createNetwork({ ...request, Name: name, CheckDuplicate: true });
    await monitor.refreshNetworks();
    const created = monitor.node.networks().find((network) => network.id === Id);
    if (!created) throw SwarmErrors.networkCreatedNotListed({ name, node: monitor.node.name });
    return created;
  }

  /** Through the network's node; one of wider scope than local (overlay) is then gone from every node's list too. */
  async remove(network: Network): Promise<void> {
    const monitor = this.pool.of(network.node);
    await monitor.api.removeNetwork(network.id);
    for (const node of network.scope === 'local' ? [monitor.node] : this.pool.nodes()) node.upsertNetwork(undefined, network.id);
  }
}
