import { queryString, type RouteHandler } from '../context.js';
import { proxyToEngine } from '../engine/proxy.js';
import { containerEndpoint, findContainer, healthyNodes, nodeEndpoint } from '../lookups.js';
import { HttpError } from '../responses.js';

/** POST /commit?container=...: on the container's engine, with the engine's container ID. */
export const commit: RouteHandler = async (ctx) => {
  const name = ctx.query.get('container');
  if (!name) throw new HttpError(400, 'container is required');
  const container = findContainer(ctx.api, name);
  const query = new URLSearchParams(ctx.query);
  query.set('container', container.id);
  await proxyToEngine(containerEndpoint(container), `${ctx.versionPrefix}/commit${queryString(query)}`, ctx.req, ctx.res);
};

/** POST /auth: any healthy engine checks the credentials against the registry. */
export const auth: RouteHandler = async (ctx) => {
  const node = healthyNodes(ctx.api)[0];
  if (!node) throw new HttpError(500, 'No healthy node available in the cluster');
  await proxyToEngine(nodeEndpoint(node), `${ctx.versionPrefix}/auth`, ctx.req, ctx.res);
};
