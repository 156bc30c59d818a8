import { randomBytes } from 'node:crypto';
import type { Volume, VolumeInventory, VolumeManagement } from '@swarm/plugin-sdk';
import type { VolumeCreateRequest } from '@swarm/plugin-sdk/docker';
import type { EnginePool } from './engine-pool.js';
import { SwarmErrors } from './errors.js';
import { fanOut } from './fan-out.js';
import { copiesOf, splitNodePrefix } from './node-reference.js';

/** The volumes of every engine; local volumes exist per engine, so they are created on each. */
export class SwarmVolumes implements VolumeInventory, VolumeManagement {
  constructor(private readonly pool: EnginePool) {}

  list(): readonly Volume[] {
    return this.pool.nodes().flatMap((node) => node.volumes());
  }

  /** Swarm classic's Volumes.Get: a unique exact name, else `node/name`. */
  find(reference: string): Volume | undefined {
    if (reference === '') return undefined;
    const nodes = this.pool.nodes();
    const exact = nodes.flatMap((node) => node.volumes().filter((volume) => volume.name === reference));
    if (exact.length > 0) return exact.length === 1 ? exact[0] : undefined;
    const { node, name } = splitNodePrefix(nodes, reference);
    return node?.volumes().find((volume) => volume.name === name);
  }

  /** On the named node for `node/name`, else on every healthy engine. */
  async create(request: VolumeCreateRequest): Promise<Volume> {
    const monitors = this.pool.healthy();
    const nodes = monitors.map((monitor) => monitor.node);
    const { node, name } = request.Name ? splitNodePrefix(nodes, request.Name) : { name: randomBytes(32).toString('hex') };
    if (request.Name?.includes('/') && !node) throw SwarmErrors.noSuchNode({ node: request.Name.split('/')[0]! });
    const targets = node ? monitors.filter((monitor) => monitor.node === node) : monitors;
    const created = await fanOut(targets, async (monitor) => {
      const summary = await monitor.api.createVolume({ ...request, Name: name });
      monitor.node.upsertVolume(summary, summary.Name);
      return { name: summary.Name, driver: summary.Driver, summary, node: monitor.node } satisfies Volume;
    });
    return created[0]!;
  }

  /**
   * Remove every healthy engine's copy of a name, or the one `node/name` names (Swarm classic's
   * RemoveVolumes). Copies are removed at once; when some fail, the others stay removed and the
   * error has one `node: reason` line per failed engine.
   */
  async remove(reference: string, force: boolean): Promise<void> {
    const { holders, name } = copiesOf(this.pool.healthy(), reference, (node, wanted) =>
      node.volumes().some((volume) => volume.name === wanted),
    );
    if (holders.length === 0) throw SwarmErrors.noSuchVolume({ volume: reference });
    await fanOut(
      holders,
      async (monitor) => {
        await monitor.api.removeVolume(name, force);
        monitor.node.upsertVolume(undefined, name);
      },
      true,
    );
  }
}
