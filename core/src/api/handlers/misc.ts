import { queryString, type RouteHandler } from '../context.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { anyHealthyEngine, containerEngine, findContainer } from '../lookups.js';
import { imagePath } from './images.js';
import { readJsonBody } from '../body.js';
import { sendJson } from '../../http/responses.js';
import { checkBody } from '../validation/check-body.js';
import { authBody } from '../validation/engine-bodies.js';
import { admitCommit } from '../access-create.js';
import { changesWithOwner } from '../image-ownership.js';
import { refuseTakenImageName } from '../scoped-images.js';
import { CoreErrors } from '../../errors.js';

/** POST /commit?container=...: on the container's engine, with the engine's container ID. */
export const commit: RouteHandler = async (ctx) => {
  const name = ctx.query.get('container');
  if (!name) throw CoreErrors.missingParameter({ text: 'container is required' });
  const container = findContainer(ctx, name);
  const query = new URLSearchParams(ctx.query);
  query.set('container', container.id);
  const repo = ctx.query.get('repo');
  if (repo) refuseTakenImageName(ctx, `${repo}:${ctx.query.get('tag') || 'latest'}`, 'owned');
  const changes = changesWithOwner(ctx, ctx.query.getAll('changes'));
  await admitCommit(ctx, container);
  if (changes) {
    query.delete('changes');
    for (const change of changes) query.append('changes', change);
  }
  await forwardToEngine(containerEngine(ctx.api, container), `${ctx.versionPrefix}/commit${queryString(query)}`, ctx, { kind: 'call' });
};

/** POST /auth: any healthy engine checks the credentials against the registry. */
export const auth: RouteHandler = async (ctx) => {
  const body = await readJsonBody(ctx.req, ctx.api.limits.maxJsonBodyBytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw CoreErrors.bodyInvalidJson({ reason: 'expected an object' });
  const credentials = checkBody(body as Record<string, unknown>, authBody);
  const answer = await anyHealthyEngine(ctx.api).answer({ method: 'POST', path: `${ctx.versionPrefix}/auth`, body: credentials });
  sendJson(ctx.res, answer.status, answer.body ?? {});
};

/**
 * GET /distribution/{name}/json: the registry's descriptor and platforms for an image name. The
 * answer comes from the registry, not the node, so any healthy engine asks it (with the client's
 * X-Registry-Auth).
 */
export const distributionInspect: RouteHandler = async (ctx) => {
  const rest = ctx.params['*'] ?? '';
  if (!rest.endsWith('/json') || rest.length <= '/json'.length) throw CoreErrors.pageNotFound();
  const name = rest.slice(0, -'/json'.length);
  await forwardToEngine(
    anyHealthyEngine(ctx.api),
    `${ctx.versionPrefix}/distribution/${imagePath(name)}/json${queryString(ctx.query)}`,
    ctx,
    { kind: 'call' },
  );
};
