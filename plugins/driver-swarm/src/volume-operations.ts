import { randomBytes } from 'node:crypto';
import { notFound, type Volume, type VolumeCreateRequest } from '@swarm/plugin-sdk';
import type { EngineMonitor } from './engine-monitor.js';
import type { EngineNode } from './engine-node.js';
import { fanOut } from './fan-out.js';

/** `node/name` split when the prefix names a node (by name or engine ID). */
export function splitNodePrefix(nodes: readonly EngineNode[], reference: string): { node?: EngineNode; name: string } {
  const slash = reference.indexOf('/');
  if (slash <= 0) return { name: reference };
  const prefix = reference.slice(0, slash);
  const node = nodes.find((candidate) => candidate.name === prefix || candidate.engineId === prefix || candidate.id === prefix);
  return node ? { node, name: reference.slice(slash + 1) } : { name: reference };
}

/** Swarm classic's Volumes.Get: a unique exact name, else `node/name`. */
export function findVolume(nodes: readonly EngineNode[], reference: string): Volume | undefined {
  if (reference === '') return undefined;
  const exact = nodes.flatMap((node) => node.volumes().filter((volume) => volume.name === reference));
  if (exact.length > 0) return exact.length === 1 ? exact[0] : undefined;
  const { node, name } = splitNodePrefix(nodes, reference);
  return node?.volumes().find((volume) => volume.name === name);
}

/** On the named node for `node/name`, else on every engine (local volumes exist per engine). */
export async function createVolume(monitors: readonly EngineMonitor[], request: VolumeCreateRequest): Promise<Volume> {
  const nodes = monitors.map((monitor) => monitor.node);
  const { node, name } = request.Name ? splitNodePrefix(nodes, request.Name) : { name: randomBytes(32).toString('hex') };
  if (request.Name?.includes('/') && !node) throw notFound(`No such node: ${request.Name.split('/')[0]}`);
  const targets = node ? monitors.filter((monitor) => monitor.node === node) : monitors;
  const created = await fanOut(targets, async (monitor) => {
    const summary = await monitor.api.createVolume({ ...request, Name: name });
    monitor.node.upsertVolume(summary, summary.Name);
    return { name: summary.Name, driver: summary.Driver, summary, node: monitor.node } satisfies Volume;
  });
  return created[0]!;
}

/** Remove from every engine holding it (`node/name`: that engine only). */
export async function removeVolume(monitors: readonly EngineMonitor[], reference: string, force: boolean): Promise<void> {
  const { node, name } = splitNodePrefix(
    monitors.map((monitor) => monitor.node),
    reference,
  );
  const holders = monitors.filter(
    (monitor) => (!node || monitor.node === node) && monitor.node.volumes().some((volume) => volume.name === name),
  );
  if (holders.length === 0) throw notFound(`No such volume: ${reference}`);
  await fanOut(
    holders,
    async (monitor) => {
      await monitor.api.removeVolume(name, force);
      monitor.node.upsertVolume(undefined, name);
    },
    true,
  );
}
