import type { Container, EngineEndpoint, Image, Network, Node, Volume } from '@swarm/plugin-sdk';
import { capability } from './capabilities.js';
import type { ApiContext } from './context.js';
import { HttpError } from './responses.js';

export function findContainer(api: ApiContext, name: string): Container {
  const container = api.cluster.container(name);
  if (!container) throw new HttpError(404, `No such container: ${name}`);
  return container;
}

export function findImage(api: ApiContext, name: string): Image {
  const image = capability(api.cluster, 'images', 'image lookup').find(name);
  if (!image) throw new HttpError(404, `No such image: ${name}`);
  return image;
}

export function findNetwork(api: ApiContext, name: string): Network {
  const network = capability(api.cluster, 'networks', 'network lookup').find(name);
  if (!network) throw new HttpError(404, `network ${name} not found`);
  return network;
}

export function findVolume(api: ApiContext, name: string): Volume {
  const volume = capability(api.cluster, 'volumes', 'volume lookup').find(name);
  if (!volume) throw new HttpError(404, `get ${name}: no such volume`);
  return volume;
}

/** The engine behind a node, for calls proxied to it. */
export function nodeEndpoint(node: Node): EngineEndpoint {
  if (!node.isHealthy()) throw new HttpError(500, `Engine ${node.name} is unhealthy`);
  const endpoint = node.endpoint();
  if (!endpoint) throw new HttpError(501, `node ${node.name} has no Docker engine endpoint to forward this call to`);
  return endpoint;
}

/** The engine running a container; Swarm classic's 500 when its node is unhealthy. */
export function containerEndpoint(container: Container): EngineEndpoint {
  if (!container.node.isHealthy()) throw new HttpError(500, `Container ${container.name} running on unhealthy node ${container.node.name}`);
  return nodeEndpoint(container.node);
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
export function anyHealthyEndpoint(api: ApiContext): EngineEndpoint {
  const node = healthyNodes(api)[0];
  if (!node) throw new HttpError(500, 'No healthy node available in the cluster');
  return nodeEndpoint(node);
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
