import type { Network } from '@swarm/plugin-sdk';
import type { EngineNode } from './engine-node.js';
import { splitNodePrefix } from './node-reference.js';

/** Swarm classic's Networks.Get: full ID, unique name, `node/name`, unique ID prefix. */
export function findNetwork(nodes: readonly EngineNode[], reference: string): Network | undefined {
  if (reference === '') return undefined;
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
