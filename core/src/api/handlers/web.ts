import { isWebExtensionName } from '@swarm/plugin-sdk';
import type { RouteHandler } from '../context.js';
import { HttpError } from '../responses.js';
import { notSwarmMode } from './system.js';

/**
 * `/swarm/<x>...` that no mounted web extension answered: Docker's swarm-mode operations
 * (`/swarm/init`, ...) get the swarm-mode answer, any other name says how to serve a web view.
 */
export const swarmSubpath: RouteHandler = async (ctx) => {
  const name = (ctx.params['*'] ?? '').split('/')[0] ?? '';
  if (!isWebExtensionName(name)) return notSwarmMode(ctx);
  throw new HttpError(
    404,
    `page not found: no web extension "${name}" is served here (swarm manage --ui serves the web view at /swarm/ui/; other extensions are named in the config's web key)`,
  );
};
