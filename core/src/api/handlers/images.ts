import type { Image, Node } from '@swarm/plugin-sdk';
import type { ImageRemoval, ImageSummary } from '@swarm/plugin-sdk/docker';
import { capability } from '../capabilities.js';
import { queryFlag, queryString, type RequestContext, type RouteHandler } from '../context.js';
import { checkFilterKeys, matchesAny, matchesLabels, parseFilters, type DockerFilters } from '../docker-filters.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { anyHealthyEngine, findImage, healthyNodes, nodeEngine } from '../lookups.js';
import { imageCopies, isOwnedImage } from '../../access/scoped-images.js';
import { refuseRemovalInUse, refuseTakenImageName, seesImage } from '../scoped-images.js';
import { sendJson } from '../../http/responses.js';
import { splitOperation } from '../../util/split-operation.js';
import { CoreErrors } from '../../errors.js';

const IMAGE_FILTERS = ['node', 'reference', 'dangling', 'label', 'before', 'since'];

/** An image name as a path segment of the engine's API (slashes kept, the rest escaped). */
export function imagePath(name: string): string {
  // Whole-name encoding: dockerd decodes `%2F` before routing, and no part of a name can become a path segment of its own.
  return encodeURIComponent(name);
}

function referenceMatches(pattern: string, tags: readonly string[]): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '.')}$`,
  );
  return tags.some((tag) => regex.test(tag) || regex.test(tag.replace(/:[^:/]+$/, '')));
}

function createdOf(ctx: RequestContext, ref: string | undefined): number | undefined {
  if (ref === undefined) return undefined;
  return findImage(ctx, ref).summary.Created;
}

function keep(image: Image, filters: DockerFilters, bounds: { before?: number; since?: number }): boolean {
  if (!matchesAny(filters, 'node', [image.node.name, image.node.id])) return false;
  if (!matchesLabels(filters, image.summary.Labels)) return false;
  const dangling = filters.get('dangling')?.[0];
  const isDangling = image.repoTags.length === 0 || image.repoTags.every((tag) => tag === '<none>:<none>');
  if (dangling !== undefined && (dangling === 'true' || dangling === '1') !== isDangling) return false;
  const references = filters.get('reference') ?? [];
  if (references.length > 0 && !references.some((pattern) => referenceMatches(pattern, image.repoTags))) return false;
  if (bounds.before !== undefined && image.summary.Created >= bounds.before) return false;
  if (bounds.since !== undefined && image.summary.Created <= bounds.since) return false;
  return true;
}

/** GET /images/json: images of all nodes, one entry per image ID with the tags of every copy. */
export async function listImages(ctx: RequestContext): Promise<void> {
  const filters = parseFilters(ctx.query.get('filters'));
  checkFilterKeys(filters, IMAGE_FILTERS);
  const legacyName = ctx.query.get('filter');
  const bounds = { before: createdOf(ctx, filters.get('before')?.[0]), since: createdOf(ctx, filters.get('since')?.[0]) };
  const grouped = new Map<string, ImageSummary>();
  for (const image of capability(ctx.api.cluster, 'images', 'image listing').list()) {
    if (!keep(image, filters, bounds) || !seesImage(ctx, image)) continue;
    if (legacyName && !referenceMatches(legacyName, image.repoTags)) continue;
    const existing = grouped.get(image.id);
    if (!existing) {
      grouped.set(image.id, { ...image.summary, RepoTags: [...image.repoTags], RepoDigests: [...image.repoDigests] });
      continue;
    }
    existing.RepoTags = [...new Set([...(existing.RepoTags ?? []), ...image.repoTags])];
    existing.RepoDigests = [...new Set([...(existing.RepoDigests ?? []), ...image.repoDigests])];
  }
  const images = [...grouped.values()].sort((a, b) => b.Created - a.Created);
  sendJson(ctx.res, 200, images);
}

/** Push names the repository and passes the tag apart; without a tag every tag of it goes. */
function pushSource(ctx: RequestContext, name: string): Image {
  const tag = ctx.query.get('tag');
  if (tag) return findImage(ctx, `${name}:${tag}`);
  const inRepository = (image: Image) => image.repoTags.some((repoTag) => repoTag.slice(0, repoTag.lastIndexOf(':')) === name);
  const tagged = capability(ctx.api.cluster, 'images', 'image push')
    .list()
    .find((image) => inRepository(image) && seesImage(ctx, image));
  // Without a tag the engine pushes every tag of the repository it holds: another team's among them would go too.
  if (tagged && tagged.node.images().some((image) => inRepository(image) && !seesImage(ctx, image))) {
    throw CoreErrors.imageNameTaken({ name });
  }
  return tagged ?? findImage(ctx, name);
}

async function forwardToHolder(ctx: RequestContext, name: string, operation: string, byId: boolean): Promise<void> {
  const image = operation === 'push' ? pushSource(ctx, name) : findImage(ctx, name);
  const target = imagePath(byId ? image.id : name);
  await forwardToEngine(
    nodeEngine(ctx.api, image.node),
    `${ctx.versionPrefix}/images/${target}/${operation}${queryString(ctx.query)}`,
    ctx,
    { kind: 'call' },
  );
}

/**
 * For a caller with a narrower view: the source must be an image they see, and the new name must
 * not take over one another team's image holds. Answers the name to tag by: the image's ID when
 * the name also names images they may not see on other nodes.
 */
function scopedTagSource(ctx: RequestContext, name: string, target: string): string {
  if (!ctx.access?.scoped) return name;
  const source = findImage(ctx, name);
  refuseTakenImageName(ctx, target, isOwnedImage(source) ? 'owned' : 'shared');
  const copies = imageCopies(ctx.api.cluster.nodes(), name);
  return copies.every((copy) => seesImage(ctx, copy.image)) ? name : source.id;
}

async function tagImage(ctx: RequestContext, name: string): Promise<void> {
  const repo = ctx.query.get('repo');
  if (!repo) throw CoreErrors.missingParameter({ text: 'repository name must have at least one component' });
  const tag = ctx.query.get('tag') || 'latest';
  const source = scopedTagSource(ctx, name, `${repo}:${tag}`);
  // every node's copy, or the one `node/image` names: the cluster decides, and answers 404 when none holds it
  await capability(ctx.api.cluster, 'imageManagement', 'image tag').tag(source, repo, tag, queryFlag(ctx.query, 'force'));
  ctx.res.writeHead(201);
  ctx.res.end();
}

/** `/images/{name}/{operation}` where the name may hold slashes and a registry port. */
export const imageOperation: RouteHandler = async (ctx) => {
  const method = ctx.req.method ?? 'GET';
  const operations = method === 'POST' ? ['tag', 'push'] : ['json', 'history', 'get'];
  const split = splitOperation(ctx.params['*'] ?? '', operations);
  if (!split) throw CoreErrors.pageNotFound();
  switch (split.operation) {
    case 'tag':
      return tagImage(ctx, split.name);
    case 'json':
    case 'history':
      return forwardToHolder(ctx, split.name, split.operation, true);
    default:
      return forwardToHolder(ctx, split.name, split.operation, false);
  }
};

/** DELETE /images/{name}?force */
export const removeImage: RouteHandler = async (ctx) => {
  const name = ctx.params['*'] ?? '';
  const management = capability(ctx.api.cluster, 'imageManagement', 'image removal');
  const force = queryFlag(ctx.query, 'force');
  const removed = ctx.access?.scoped
    ? await removeVisibleCopies(ctx, name, (reference) => management.remove(reference, force))
    : await management.remove(name, force);
  if (removed.length === 0) throw CoreErrors.noSuchImage({ name });
  sendJson(ctx.res, 200, removed);
};

/**
 * A scoped caller removes only the copies they see, node by node when the name also names
 * images they may not see; never one that another team's containers use.
 */
async function removeVisibleCopies(
  ctx: RequestContext,
  name: string,
  remove: (reference: string) => Promise<ImageRemoval[]>,
): Promise<ImageRemoval[]> {
  const copies = imageCopies(ctx.api.cluster.nodes(), name);
  const visible = copies.filter((copy) => seesImage(ctx, copy.image));
  if (visible.length === 0) throw CoreErrors.noSuchImage({ name });
  for (const copy of visible) refuseRemovalInUse(ctx, copy.image, name);
  if (visible.length === copies.length) return remove(name);
  const answers = await Promise.all(visible.map((copy) => remove(`${copy.node.name}/${name}`)));
  return answers.flat();
}

/** GET /images/get?names=...: one engine must hold every name (Swarm classic's rule). */
export const saveImages: RouteHandler = async (ctx) => {
  const names = ctx.query.getAll('names');
  const holds = (node: Node, name: string) => {
    const image = node.image(name);
    return image !== undefined && seesImage(ctx, image);
  };
  const holder = healthyNodes(ctx.api).find((node) => names.every((name) => holds(node, name)));
  if (!holder) throw CoreErrors.noEngineWithAllImages({ names });
  const path = `${ctx.versionPrefix}/images/get${queryString(ctx.query)}`;
  await forwardToEngine(nodeEngine(ctx.api, holder), path, ctx, { kind: 'image-save' });
};

/** GET /images/search: any healthy engine asks the registry. */
export const searchImages: RouteHandler = async (ctx) => {
  await forwardToEngine(anyHealthyEngine(ctx.api), `${ctx.versionPrefix}/images/search${queryString(ctx.query)}`, ctx, { kind: 'call' });
};
