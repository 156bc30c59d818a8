import type { VolumeCreateRequest, VolumeSummary } from '@swarm/plugin-sdk/docker';
import { queryFlag, queryString, type RequestContext, type RouteHandler } from '../context.js';
import { readJsonObject } from '../body.js';
import { checkBody } from '../validation/check-body.js';
import { volumeCreateBody } from '../validation/engine-bodies.js';
import { capability } from '../capabilities.js';
import { checkFilterKeys, matchesAny, matchesLabels, parseFilters } from '../docker-filters.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { findVolume, nodeEngine } from '../lookups.js';
import { sendJson, sendNoContent } from '../../http/responses.js';
import { volumeObject } from '../../access/access-objects.js';
import { CoreErrors } from '../../errors.js';
import { admitVolume, ownershipLabels, refuseHeldVolume } from '../access-create.js';
import type { Volume } from '@swarm/plugin-sdk';
import { listsEngineNames } from '../compose-project.js';

const VOLUME_FILTERS = ['name', 'driver', 'label', 'dangling', 'node'];

/** GET /volumes: local volumes shown as `node/name` (Swarm classic). */
export const listVolumes: RouteHandler = async (ctx) => {
  const filters = parseFilters(ctx.query.get('filters'));
  checkFilterKeys(filters, VOLUME_FILTERS);
  const volumes: VolumeSummary[] = [];
  const access = ctx.access;
  const engineNames = listsEngineNames(filters);
  for (const volume of capability(ctx.api.cluster, 'volumes', 'volume listing').list()) {
    if (access?.scoped && !access.sees(volumeObject(volume))) continue;
    const name = volume.driver === 'local' && !engineNames ? `${volume.node.name}/${volume.name}` : volume.name;
    if (!matchesAny(filters, 'name', [name, volume.name], true)) continue;
    if (!matchesAny(filters, 'driver', [volume.driver])) continue;
    if (!matchesAny(filters, 'node', [volume.node.name, volume.node.id])) continue;
    if (!matchesLabels(filters, volume.summary.Labels as Record<string, string> | undefined)) continue;
    const dangling = filters.get('dangling')?.[0];
    if (dangling !== undefined) {
      const used = volume.node
        .containers()
        .some((container) =>
          ((container.summary.Mounts as Array<{ Name?: string }> | undefined) ?? []).some((mount) => mount.Name === volume.name),
        );
      if ((dangling === 'true' || dangling === '1') === used) continue;
    }
    volumes.push({ ...volume.summary, Name: name });
  }
  sendJson(ctx.res, 200, { Volumes: volumes, Warnings: [] });
};

/** POST /volumes/create */
export const createVolume: RouteHandler = async (ctx) => {
  const body = checkBody(await readJsonObject(ctx.req, ctx.api.limits.maxJsonBodyBytes), volumeCreateBody);
  if (typeof body.Name === 'string') refuseHeldVolume(ctx, body.Name);
  await admitVolume(ctx, body);
  const labels = ownershipLabels(ctx, body.Labels as Record<string, string> | undefined);
  const request = { ...(body as VolumeCreateRequest), ...(labels ? { Labels: labels } : {}) };
  const volume = await capability(ctx.api.cluster, 'volumeManagement', 'volume create').create(request);
  sendJson(ctx.res, 201, volume.summary);
};

/** The copies of `name` (or of `node/name`) the caller may see; Docker's 404 when there are none. */
function visibleCopies(ctx: RequestContext, name: string): Volume[] {
  const access = ctx.access;
  const slash = name.lastIndexOf('/');
  const [node, base] = slash < 0 ? [undefined, name] : [name.slice(0, slash), name.slice(slash + 1)];
  const copies = capability(ctx.api.cluster, 'volumes', 'volume lookup')
    .list()
    .filter(
      (volume) => volume.name === base && (node === undefined || volume.node.name === node) && access?.sees(volumeObject(volume)) !== false,
    );
  if (copies.length === 0) throw CoreErrors.noSuchVolume({ name });
  return copies;
}

function scopedVolumeName(volume: Volume): string {
  return volume.driver === 'local' ? `${volume.node.name}/${volume.name}` : volume.name;
}

/**
 * GET /volumes/{name} (the holder's engine answers); DELETE /volumes/{name}?force removes every
 * node's copy of a name, or the one `node/name` names (the cluster decides, as Swarm classic).
 */
export const volumeOperation: RouteHandler = async (ctx) => {
  const name = ctx.params['*'] ?? '';
  if (ctx.req.method === 'DELETE') {
    const management = capability(ctx.api.cluster, 'volumeManagement', 'volume removal');
    const force = queryFlag(ctx.query, 'force');
    const access = ctx.access;
    if (!access?.scoped) await management.remove(name, force);
    // A scoped caller removes the copies they may see (a volume made through the manager has one
    // on every node), never another team's copy of the same name.
    else for (const copy of visibleCopies(ctx, name)) await management.remove(scopedVolumeName(copy), force);
    return sendNoContent(ctx.res);
  }
  const volume = findVolume(ctx, name);
  await forwardToEngine(
    nodeEngine(ctx.api, volume.node),
    `${ctx.versionPrefix}/volumes/${encodeURIComponent(volume.name)}${queryString(ctx.query)}`,
    ctx,
    { kind: 'call' },
  );
};
