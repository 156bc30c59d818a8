import { isWebExtensionName } from '@swarm/plugin-sdk';
import type { RouteHandler } from '../context.js';
import { notSwarmMode } from './system.js';
import { CoreErrors } from '../../errors.js';

/**
 * `/swarm/<x>...` that no mounted web extension answered: Docker's swarm-mode operations
 * (`/swarm/init`, ...) get the swarm-mode answer, any other name says how to serve a web view.
 */
export const swarmSubpath: RouteHandler = async (ctx) => {
  const name = (ctx.params['*'] ?? '').split('/')[0] ?? '';
  if (!isWebExtensionName(name)) return notSwarmMode(ctx);
  throw CoreErrors.noWebExtension({ name });
};
