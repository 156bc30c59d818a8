import type { Container, Image, Network, Node, Volume } from '@swarm/plugin-sdk';
import type { EngineClient } from '@swarm/plugin-sdk/helpers';
import { capability } from './capabilities.js';
import type { ApiContext, RequestContext } from './context.js';
import { CoreErrors } from '../errors.js';

/** The parts of a request a look-up needs: the API, and what the caller may see. */
export type LookupScope = Pick<RequestContext, 'api' | 'access'>;

/** A container the caller may see, by ID, name, `node/name` or unique ID prefix; Docker's 404 otherwise. */
export function findContainer({ api, access }: LookupScope, name: string): Container {
  const container = access?.lookups ? access.lookups.container(name) : api.cluster.container(name);
  if (!container) throw CoreErrors.noSuchContainer({ name });
  return container;
}

/** An image the caller may see, by ID, name or ID prefix (on any node); Docker's 404 otherwise. */
export function findImage({ api, access }: LookupScope, name: string): Image {
  const image = access?.lookups ? access.lookups.image(name) : capability(api.cluster, 'images', 'image lookup').find(name);
  if (!image) throw CoreErrors.noSuchImage({ name });
  return image;
}

export function findNetwork({ api, access }: LookupScope, name: string): Network {
  const network = access?.lookups ? access.lookups.network(name) : capability(api.cluster, 'networks', 'network lookup').find(name);
  if (!network) throw CoreErrors.networkNotFound({ name });
  return network;
}

export function findVolume({ api, access }: LookupScope, name: string): Volume {
  const volume = access?.lookups ? access.lookups.volume(name) : capability(api.cluster, 'volumes', 'volume lookup').find(name);
  if (!volume) throw CoreErrors.noSuchVolume({ name });
  return volume;
}

/** The engine behind a node, for calls proxied to it. */
export function nodeEngine(api: ApiContext, node: Node): EngineClient {
  if (!node.isHealthy()) throw CoreErrors.engineUnhealthy({ node: node.name });
  const endpoint = node.endpoint();
  if (!endpoint) throw CoreErrors.nodeWithoutEngine({ node: node.name });
  return api.engines.of(endpoint);
}

/** The engine running a container; Swarm classic's 500 when its node is unhealthy. */
export function containerEngine(api: ApiContext, container: Container): EngineClient {
  if (!container.node.isHealthy()) throw CoreErrors.containerNodeUnhealthy({ container: container.name, node: container.node.name });
  return nodeEngine(api, container.node);
}

/** Healthy nodes with an engine to call (of `nodes`: by default every node of the cluster). */
export function healthyNodes(api: ApiContext, nodes: readonly Node[] = api.cluster.nodes()): Node[] {
  return nodes.filter((node) => node.isHealthy() && node.endpoint() !== undefined);
}

/** Healthy nodes whose engines hold Docker engine plugins: 501 for drivers without them. */
export function pluginNodes(api: ApiContext): Node[] {
  return healthyNodes(api, capability(api.cluster, 'enginePlugins', 'plugin management').nodes());
}

/** For calls whose answer does not depend on the node (registry look-ups, auth): any healthy engine. */
export function anyHealthyEngine(api: ApiContext): EngineClient {
  const node = healthyNodes(api)[0];
  if (!node) throw CoreErrors.noHealthyNode();
  return nodeEngine(api, node);
}

/** Swarm classic's `Node` object, added to container inspect answers. */
export function nodeJson(node: Node): Record<string, unknown> {
  return {
    ID: node.id,
    IP: node.ip,
    Addr: node.addr,
    Name: node.name,
    Cpus: node.totalCpus(),
    Memory: node.totalMemory(),
    Labels: node.labels(),
  };
}

/** `X-Registry-Auth` (base64url JSON) as credentials, or undefined. */
export function registryAuth(header: string | string[] | undefined): Record<string, unknown> | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
