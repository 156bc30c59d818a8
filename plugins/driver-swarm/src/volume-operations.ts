import { randomBytes } from 'node:crypto';
import { notFound, type Volume, type VolumeCreateRequest } from '@swarm/plugin-sdk';
import type { EngineMonitor } from './engine-monitor.js';
import type { EngineNode } from './engine-node.js';
import { fanOut } from './fan-out.js';
import { copiesOf, splitNodePrefix } from './node-reference.js';

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

/**
 * Remove every engine's copy of a name, or the one `node/name` names (Swarm classic's
 * RemoveVolumes). Copies are removed at once; when some fail, the others stay removed and the
 * error has one `node: reason` line per failed engine.
 */
export async function removeVolume(monitors: readonly EngineMonitor[], reference: string, force: boolean): Promise<void> {
  const { holders, name } = copiesOf(monitors, reference, (node, wanted) => node.volumes().some((volume) => volume.name === wanted));
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
