import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { ProgressListener, TransferOptions } from '@swarm/plugin-sdk';
import { capability } from '../capabilities.js';
import { admitImport } from '../access-create.js';
import type { RouteHandler } from '../context.js';
import { registryAuth } from '../lookups.js';
import { ProgressStream } from '../progress-stream.js';
import { changesWithOwner } from '../image-ownership.js';
import { judgedLoad, refuseTakenImageName } from '../scoped-images.js';
import { CoreErrors } from '../../errors.js';

function withTag(image: string, tag: string | null): string {
  if (!tag) return image;
  return tag.startsWith('sha256:') ? `${image}@${tag}` : `${image}:${tag}`;
}

/** Aborts when the client goes away before the answer is complete, so the engines' transfers stop too. */
function untilClientLeaves(res: ServerResponse): TransferOptions {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return { signal: controller.signal };
}

type Transfer = (onProgress: ProgressListener, options: TransferOptions) => Promise<void>;

/**
 * The pull or import a create asks for. The capability is looked up before the answer starts
 * streaming, so a driver without it gets Docker's 501 naming the driver.
 */
function transferOf(ctx: Parameters<RouteHandler>[0], fromImage: string | null, fromSrc: string): Transfer {
  if (fromImage) {
    const images = capability(ctx.api.cluster, 'imagePull', 'image pull');
    // A pull moves the name onto what the registry holds: not off another team's image.
    refuseTakenImageName(ctx, withTag(fromImage, ctx.query.get('tag')), 'shared');
    const auth = registryAuth(ctx.req.headers['x-registry-auth']);
    return (onProgress, options) => images.pull(withTag(fromImage, ctx.query.get('tag')), auth, onProgress, options);
  }
  const images = capability(ctx.api.cluster, 'imageManagement', 'image import');
  const repo = ctx.query.get('repo');
  if (repo) refuseTakenImageName(ctx, `${repo}:${ctx.query.get('tag') || 'latest'}`, 'owned');
  const changes = changesWithOwner(ctx, ctx.query.getAll('changes')) ?? ctx.query.getAll('changes');
  const message = ctx.query.get('message') ?? '';
  const body: Readable | undefined = fromSrc === '-' ? ctx.req : undefined;
  return (onProgress, options) =>
    images.importFrom(fromSrc, ctx.query.get('repo') ?? '', ctx.query.get('tag') ?? '', body, onProgress, { ...options, changes, message });
}

/** POST /images/create: a pull fanned out to every node, or an import (`fromSrc`). */
export const createImage: RouteHandler = async (ctx) => {
  const fromImage = ctx.query.get('fromImage');
  const fromSrc = ctx.query.get('fromSrc');
  if (!fromImage && !fromSrc) throw CoreErrors.missingParameter({ text: 'fromImage or fromSrc is required' });
  if (!fromImage) await admitImport(ctx, fromSrc ?? '');
  const transfer = transferOf(ctx, fromImage, fromSrc ?? '');
  const progress = new ProgressStream(ctx.res);
  try {
    await transfer(progress.writeFromNode.bind(progress), untilClientLeaves(ctx.res));
    progress.end();
  } catch (error) {
    progress.fail(error);
  }
};

/** POST /images/load: the archive is copied to every node. */
export const loadImage: RouteHandler = async (ctx) => {
  const images = capability(ctx.api.cluster, 'imageManagement', 'image load');
  const archive = await judgedLoad(ctx, ctx.req);
  const progress = new ProgressStream(ctx.res);
  try {
    await images.load(archive, progress.writeFromNode.bind(progress), untilClientLeaves(ctx.res));
    progress.end();
  } catch (error) {
    progress.fail(error);
  }
};
