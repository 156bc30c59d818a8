import type { ApiContext } from '../api/context.js';
import { webPrefix } from '../util/web-extension-names.js';
import type { ApiRouter } from '../api/router.js';
import type { Deployment } from '../deployment/deployment.js';
import { createManagerView } from './manager-view.js';
import { mountWebExtensions } from './mount-web-extensions.js';

export interface WebExtensionsServed {
  close(): Promise<void>;
}

/**
 * Mount the web extensions a deployment's config names on an API server's router, with one
 * ManagerView for all of them. Undefined when the config names none (nothing is created then).
 */
export async function serveWebExtensions(
  router: ApiRouter,
  deployment: Deployment,
  api: ApiContext,
): Promise<WebExtensionsServed | undefined> {
  const extensions = deployment.webExtensions();
  if (extensions.length === 0) return undefined;
  const view = createManagerView({
    deployment,
    cluster: api.cluster,
    scheduler: api.scheduler,
    version: api.version,
    metrics: api.metrics,
    role: api.role,
  });
  try {
    const mounted = await mountWebExtensions(router, extensions, { view, logger: api.logger, jsonLimit: api.limits.maxJsonBodyBytes });
    for (const { name } of extensions) api.logger.info({ path: `${webPrefix(name)}/` }, `Web extension "${name}" served`);
    return {
      close: async () => {
        await mounted.unmount();
        view.close();
      },
    };
  } catch (error) {
    view.close();
    throw error;
  }
}
