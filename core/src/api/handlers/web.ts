import type { RouteHandler } from '../context.js';
import { HttpError } from '../responses.js';

/** `/swarm/<name>/...` when no web extension of that name is mounted. */
export const webExtensionNotServed: RouteHandler = async (ctx) => {
  const name = (ctx.params['*'] ?? '').split('/')[0];
  throw new HttpError(
    404,
    `page not found: no web extension "${name}" is served here (swarm manage --ui serves the web view at /swarm/ui/; other extensions are named in the config's web key)`,
  );
};
