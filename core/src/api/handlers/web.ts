import type { RouteHandler } from '../context.js';
import { CoreErrors } from '../../errors.js';
import { isWebExtensionName } from '../../util/web-extension-names.js';

/**
 * `/swarm/<x>...` that neither Docker's swarm-mode routes nor a mounted web extension answered:
 * a web extension's name says how to serve one, anything else is not found (as on dockerd).
 */
export const swarmSubpath: RouteHandler = async (ctx) => {
  const name = (ctx.params['*'] ?? '').split('/')[0] ?? '';
  if (!isWebExtensionName(name)) throw CoreErrors.pageNotFound();
  throw CoreErrors.noWebExtension({ name });
};
