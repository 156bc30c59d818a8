import type { HTTPMethod } from 'find-my-way';
import { webPrefix } from '../util/web-extension-names.js';
import { isSwarmError, type Logger } from '@swarm/plugin-sdk';
import type { ManagerView, WebMethod, WebRequest, WebRoute, WebViewer } from '@swarm/plugin-sdk/web';
import { containerObject } from '../access/access-objects.js';
import { readJsonBody } from '../api/body.js';
import { configToExplain } from '../api/access-create.js';
import { explainCreate } from '../api/explain-dry-run.js';
import { formatExplanation } from '../explain/explanation-table.js';
import type { RequestContext, RouteHandler } from '../api/context.js';
import type { ApiRouter } from '../api/router.js';
import type { ConfiguredWebExtension } from '../deployment/deployment.js';
import { NodeWebResponse } from './web-response.js';
import { CoreErrors } from '../errors.js';

/** What the routes of every extension share: the manager's view, the log, the JSON body limit. */
interface WebHostParts {
  readonly view: ManagerView;
  readonly logger: Logger;
  readonly jsonLimit: number;
}

export interface MountedWebExtensions {
  /** Calls every extension's `unmount`. */
  unmount(): Promise<void>;
}

function methodsOf(route: WebRoute): HTTPMethod[] {
  const methods: readonly WebMethod[] = typeof route.method === 'string' ? [route.method] : route.method;
  return [...methods];
}

function checkRoute(name: string, route: WebRoute): void {
  if (typeof route.path !== 'string' || !route.path.startsWith('/')) {
    throw CoreErrors.webRoutePath({ name, path: route.path });
  }
  if (typeof route.handle !== 'function') throw CoreErrors.webRouteHandle({ name, path: route.path });
}

function waitForClose(ctx: RequestContext): Promise<void> {
  if (ctx.res.writableFinished || ctx.res.destroyed) return Promise.resolve();
  return new Promise((resolve) => ctx.res.once('close', () => resolve()));
}

/**
 * The caller as a web extension sees them, when the deployment has access control. Their dry run
 * is the one `/_swarm/v1/explain` gives them, so the web view's explain tells no more.
 */
function viewerOf(ctx: RequestContext, view: ManagerView): WebViewer | undefined {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control) return undefined;
  const { caller } = access;
  return {
    user: caller.user,
    groups: caller.groups,
    method: caller.method,
    roles: control.roles(caller),
    scoped: access.scoped,
    sees: (container) => !access.scoped || access.sees(containerObject(container)),
    explain: (config) => view.explain(configToExplain(ctx, config)),
    dryRun: async (config) => {
      const explanation = await explainCreate(ctx, config);
      return { explanation, text: formatExplanation(explanation) };
    },
  };
}

/** The route handler that serves one web route through the API's dispatcher. */
function routeHandler(name: string, prefix: string, route: WebRoute, host: WebHostParts): RouteHandler {
  return async (ctx) => {
    const pathname = new URL(ctx.req.url ?? '/', 'http://swarm.invalid').pathname.slice(ctx.versionPrefix.length);
    // Relative links in a page at /swarm/x/ resolve against the folder: /swarm/x must become /swarm/x/.
    if (pathname === prefix && route.path === '/') {
      const query = ctx.query.toString();
      ctx.res.writeHead(301, { Location: `${prefix}/${query === '' ? '' : `?${query}`}`, 'Content-Length': '0' });
      ctx.res.end();
      return;
    }
    const aborted = new AbortController();
    ctx.res.once('close', () => aborted.abort());
    const viewer = viewerOf(ctx, host.view);
    const request: WebRequest = {
      ...(viewer ? { viewer } : {}),
      method: (ctx.req.method ?? 'GET') as WebMethod,
      path: pathname.slice(prefix.length) || '/',
      params: ctx.params,
      query: ctx.query,
      headers: ctx.req.headers,
      signal: aborted.signal,
      json: () => readJsonBody(ctx.req, host.jsonLimit),
    };
    const response = new NodeWebResponse(ctx.req, ctx.res);
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
    try {
      await route.handle(request, response);
    } catch (error) {
      if (isSwarmError(error)) throw error;
      host.logger.error({ err: error, route: route.path }, 'web extension route failed');
      throw CoreErrors.webRouteFailed({ name, reason: error instanceof Error ? error.message : String(error) }, { cause: error });
    }
    if (!response.answered) throw CoreErrors.webRouteSilent({ name, method: request.method, path: request.path });
    // A stream keeps the request open: its log line and duration come when it ends.
    if (response.streaming) await waitForClose(ctx);
  };
}

/**
 * Mount each configured web extension's routes under `/swarm/<name>` in the API's router, so they
 * pass through the same dispatcher as the Docker API (limits, path checks, errors, logs, metrics).
 */
export async function mountWebExtensions(
  router: ApiRouter,
  extensions: readonly ConfiguredWebExtension[],
  host: WebHostParts,
): Promise<MountedWebExtensions> {
  const mounted: ConfiguredWebExtension[] = [];
  for (const configured of extensions) {
    const prefix = webPrefix(configured.name);
    const logger = host.logger.child({ web: configured.name });
    let routes: readonly WebRoute[];
    try {
      routes = await configured.extension.mount({ prefix, options: configured.settings, view: host.view, logger });
      for (const route of routes) checkRoute(configured.name, route);
    } catch (error) {
      await Promise.all(mounted.map((done) => done.extension.unmount?.()));
      throw CoreErrors.webMountFailed({ name: configured.name, reason: (error as Error).message }, { cause: error });
    }
    mounted.push(configured);
    for (const route of routes) {
      const handler = routeHandler(configured.name, prefix, route, { ...host, logger });
      if (route.path !== '/') {
        router.add(methodsOf(route), `${prefix}${route.path}`, handler);
        continue;
      }
      // Paths match exactly (as dockerd's do), so the bare prefix is its own route: the handler redirects it.
      router.add(methodsOf(route), `${prefix}/`, handler);
      router.add(methodsOf(route), prefix, handler);
    }
  }
  return {
    unmount: async () => {
      await Promise.all(mounted.map((configured) => configured.extension.unmount?.()));
    },
  };
}
