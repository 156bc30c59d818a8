import { startApiServer, type ApiServer, type ApiServerOptions } from '../api/index.js';
import type { Deployment } from '../deployment/deployment.js';
import { serveWebExtensions } from '../web/serve-web-extensions.js';
import { buildAccessControl } from './access-control.js';
import { AuditLog } from '../access/audit-log.js';

/**
 * The Docker API server with the web extensions the deployment's config names served under
 * `/swarm/<name>/`. Composed here because the web host (web/) sits above the API front it mounts on.
 */
export async function startApi(
  options: Omit<ApiServerOptions, 'mount' | 'access' | 'managersGroup'> & { readonly deployment: Deployment; readonly configDir: string },
): Promise<ApiServer> {
  const { deployment, configDir, ...server } = options;
  const settings = deployment.config.access;
  const [access, audit] = await Promise.all([
    buildAccessControl(deployment, configDir, server.logger),
    settings?.audit ? AuditLog.open(settings.audit, server.logger) : undefined,
  ]);
  return startApiServer({
    ...server,
    ...(access ? { access } : {}),
    ...(audit ? { audit } : {}),
    ...(deployment.config.access?.managersGroup ? { managersGroup: deployment.config.access.managersGroup } : {}),
    mount: (router, api) => {
      deployment.guard.report(api.metrics);
      return serveWebExtensions(router, deployment, api);
    },
  });
}
