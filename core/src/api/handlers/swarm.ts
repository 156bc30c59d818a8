import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import type { RouteHandler } from '../context.js';
import { readJsonObject } from '../body.js';
import { sendJson } from '../../http/responses.js';
import { checkBody } from '../validation/check-body.js';
import { containerCreateBody } from '../validation/engine-bodies.js';
import { CoreErrors } from '../../errors.js';
import { explainCreate } from '../explain-dry-run.js';
import { PROMETHEUS_CONTENT_TYPE } from '../prometheus-text.js';

/**
 * POST /_swarm/v1/explain: a dry run of a container create through authorization, admission and
 * the scheduler, stopping before the engine; a refusal is answered 200 as the explanation of the
 * stage that refused (the request was read, it is the create that is refused).
 */
export const explain: RouteHandler = async (ctx) => {
  const body = checkBody(await readJsonObject(ctx.req, ctx.api.limits.maxJsonBodyBytes), containerCreateBody);
  if (typeof body.Image !== 'string')
    throw CoreErrors.missingParameter({ text: 'the body must be a container create config with an Image' });
  sendJson(ctx.res, 200, await explainCreate(ctx, body as ContainerConfig, ctx.query.get('name') ?? undefined));
};

/** GET /_swarm/metrics: Prometheus text format. */
export const metrics: RouteHandler = (ctx) => {
  const text = ctx.api.metrics.registry.render();
  ctx.res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE });
  ctx.res.end(text);
  return Promise.resolve();
};
