import { startApiServer, type ApiServer, type ApiServerOptions } from '../api/index.js';
import type { Deployment } from '../deployment/deployment.js';
import { serveWebExtensions } from '../web/serve-web-extensions.js';

/**
 * The Docker API server with the web extensions the deployment's config names served under
 * `/swarm/<name>/`. Composed here because the web host (web/) sits above the API front it mounts on.
 */
export function startApi(options: Omit<ApiServerOptions, 'mount'> & { readonly deployment: Deployment }): Promise<ApiServer> {
  const { deployment, ...server } = options;
  return startApiServer({ ...server, mount: (router, api) => serveWebExtensions(router, deployment, api) });
}
