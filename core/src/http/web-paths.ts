import { isWebExtensionName } from '../util/web-extension-names.js';

/** `/swarm/<name>` or below, for a name a web extension may have (not Docker's `/swarm/init` and co). */
export function isWebExtensionPath(path: string): boolean {
  if (!path.startsWith('/swarm/')) return false;
  const end = path.indexOf('/', '/swarm/'.length);
  return isWebExtensionName(path.slice('/swarm/'.length, end === -1 ? undefined : end));
}
