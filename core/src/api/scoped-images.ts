import { Readable } from 'node:stream';
import type { Image } from '@swarm/plugin-sdk';
import { OWNER_LABEL, TEAM_LABEL } from '@swarm/plugin-sdk/access';
import type { IncomingMessage } from 'node:http';
import { dockerfileBases } from '../access/dockerfile-images.js';
import { archiveImages } from '../access/image-archive.js';
import { imageObject } from '../access/access-objects.js';
import { familiar, hiddenUsers, imageCopies, mayTakeName, withDefaultTag } from '../access/scoped-images.js';
import { CoreErrors } from '../errors.js';
import { buildContext, contextDockerfile } from './build-context.js';
import type { LookupScope } from './lookups.js';
import { baseTriggers } from './base-triggers.js';

/*
 * The image rules of a request whose caller has a narrower view. An image a team made carries its
 * owner labels and is that team's; a pulled one is everyone's (the authorizer's `visibility`
 * decides). Callers who see everything are not held by any of these.
 */

/** Whether the caller may see an image (always, without access control). */
export function seesImage({ access }: LookupScope, image: Image): boolean {
  return !access?.scoped || access.sees(imageObject(image));
}

/** A reference as an image's tags list it (`busybox` is `busybox:latest`). */
function asTag(reference: string): string {
  return familiar(withDefaultTag(reference));
}

/**
 * A shared image another team's containers were made from is not the caller's to remove, forced
 * or not: dockerd would untag or delete it under them, and its own conflict names their container.
 * Taking off one of its several tags that none of those containers was made by only untags it,
 * and stays the caller's to do.
 */
export function refuseRemovalInUse(scope: LookupScope, image: Image, name: string): void {
  const access = scope.access;
  if (!access?.scoped) return;
  const users = hiddenUsers(image, scope.api.cluster.containers(), (object) => access.sees(object));
  if (users.length === 0) return;
  const tag = asTag(name);
  const untagsOnly = image.repoTags.includes(tag) && image.repoTags.length > 1;
  if (!untagsOnly || users.some((container) => asTag(container.image) === tag)) throw CoreErrors.imageInUse({ name });
}

/**
 * A container made from an image the caller may not see would run it (its files, its `ENV`):
 * when the reference names such an image on some node, the answer is dockerd's 404 for an image
 * that does not exist. A reference no node resolves goes on, for the engine to pull.
 */
export function refuseHiddenImage(scope: LookupScope, reference: string): void {
  if (namesHiddenImage(scope, reference)) throw CoreErrors.noSuchImage({ name: reference });
}

/** Whether a reference names, on some node, an image the caller may not see. */
function namesHiddenImage({ api, access }: LookupScope, reference: string): boolean {
  if (!access?.scoped || reference === '') return false;
  return imageCopies(api.cluster.nodes(), reference).some((copy) => !access.sees(imageObject(copy.image)));
}

/**
 * A name a build, commit, import or pull would give its new image: refused as taken when it would
 * move off an image the caller may not see, or off a shared one onto the caller's own.
 */
export function refuseTakenImageName(scope: LookupScope, name: string, becomes: 'owned' | 'shared'): void {
  const access = scope.access;
  if (!access?.scoped || name === '') return;
  if (!mayTakeName(scope.api.cluster.nodes(), name, becomes, (object) => access.sees(object))) {
    throw CoreErrors.imageNameTaken({ name: familiar(withDefaultTag(name)) });
  }
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

const LOAD_INSTEAD = 'build, commit or import it through the manager, or push it to a registry and pull it';

/**
 * A `docker load` by a caller with a narrower view. The manager cannot write owner labels into an
 * image it loads, so every image of the archive must already be one of the caller's team (saved from
 * this cluster); another's, or one without owner labels, would be planted in their team or be every
 * team's. Its tags must not take a name over. Answers the archive to send on.
 */
export async function judgedLoad(scope: LookupScope, body: Readable): Promise<Readable> {
  const access = scope.access;
  if (!access?.scoped) return body;
  const archive = await readAll(body);
  const images = archiveImages(archive);
  if (!images) {
    throw CoreErrors.imageLoadRefused({
      reason: `the archive cannot be read as the engine would read it: send a tar or gzipped tar with a manifest.json and regular files, as docker save writes`,
    });
  }
  for (const image of images) {
    const name = image.repoTags[0] ?? 'without a tag';
    const owned = image.labels[OWNER_LABEL] !== undefined || image.labels[TEAM_LABEL] !== undefined;
    if (!owned || !access.sees({ kind: 'image', labels: image.labels })) {
      throw CoreErrors.imageLoadRefused({
        reason: `image ${name} carries no owner labels of your team, and a loaded image cannot be given them (it would be ${owned ? "another team's" : "every team's"}): ${LOAD_INSTEAD}`,
      });
    }
    for (const tag of image.repoTags) refuseTakenImageName(scope, tag, 'owned');
  }
  return Readable.from([archive]);
}

function jsonList(text: string | null): unknown[] | undefined {
  try {
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    // the engine answers a list it cannot read itself
    return undefined;
  }
}

/**
 * A build by a caller with a narrower view builds on images the engine resolves itself (`FROM`,
 * `COPY --from`, a base image's `ONBUILD COPY --from`, `cachefrom`). When one of them is an image
 * they may not see, or one that cannot be known here (a variable in the reference, a context the
 * engine fetches, a BuildKit build whose Dockerfile comes over its session, a base image's triggers
 * no engine could tell), the engine is told to pull its bases (`pull`),
 * as it does for a name it does not hold: it builds on what the registry holds, never on another
 * team's image. A `cachefrom` image they may not see is left out, as one that does not exist.
 * Amends `query` (the engine's); the context is read whole once and kept for the engine.
 */
export async function judgedBuildBases(scope: LookupScope, req: IncomingMessage, query: URLSearchParams): Promise<void> {
  if (!scope.access?.scoped) return;
  const names = jsonList(query.get('cachefrom'));
  if (names) {
    query.set('cachefrom', JSON.stringify(names.filter((name) => typeof name !== 'string' || !namesHiddenImage(scope, name))));
  }
  if (query.get('version') === '2' || query.get('remote')) {
    query.set('pull', '1');
    return;
  }
  const dockerfile = contextDockerfile(await buildContext(req), query);
  const bases = 'text' in dockerfile ? dockerfileBases(dockerfile.text) : undefined;
  if (!bases || bases.variable || bases.images.some((image) => namesHiddenImage(scope, image))) {
    query.set('pull', '1');
    return;
  }
  // a base image's ONBUILD triggers run in this build: a `COPY --from` among them is a base too
  const triggers = await baseTriggers(scope, bases.images);
  const triggered = dockerfileBases(triggers.lines.join('\n'));
  if (triggers.unknown || triggered.variable || triggered.images.some((image) => namesHiddenImage(scope, image))) query.set('pull', '1');
}
