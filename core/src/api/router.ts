import Router, { type HTTPMethod } from 'find-my-way';
import type { RouteHandler } from './context.js';

export interface RouteMatch {
  readonly handler: RouteHandler;
  /** The route pattern, used as the metrics label and in logs. */
  readonly route: string;
  readonly params: Readonly<Record<string, string | undefined>>;
}

interface RouteStore {
  handler: RouteHandler;
  route: string;
}

const VERSION_PREFIX = /^\/v(\d+\.\d+)(?=\/)/;

/** Splits `/v1.41/containers/json` into the version prefix and the bare path. */
export function splitVersion(pathname: string): { versionPrefix: string; path: string } {
  const match = VERSION_PREFIX.exec(pathname);
  if (!match) return { versionPrefix: '', path: pathname };
  return { versionPrefix: match[0], path: pathname.slice(match[0].length) };
}

/** Routes answer both bare and with a `/v1.NN` prefix (the prefix is stripped before matching). */
export class ApiRouter {
  private readonly router = Router({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, maxParamLength: 1024 });

  add(methods: HTTPMethod | HTTPMethod[], path: string, handler: RouteHandler): this {
    const store: RouteStore = { handler, route: path };
    this.router.on(methods, path, () => undefined, store);
    return this;
  }

  find(method: string, path: string): RouteMatch | undefined {
    const found = this.router.find(method as HTTPMethod, path);
    if (!found) return undefined;
    const store = found.store as RouteStore;
    return { handler: store.handler, route: store.route, params: found.params };
  }

  /** Whether some other method would match: 405 instead of 404. */
  hasPath(path: string): boolean {
    return (['GET', 'POST', 'DELETE', 'PUT', 'HEAD'] as const).some((method) => this.router.find(method, path) !== null);
  }
}
