import { posix } from 'node:path';

/**
 * Host paths are compared normalised (`/data/../etc` is `/etc`, `/data//x/` is `/data/x`) and by
 * whole path segments, so `/data` allows `/data/x` but not `/database`. Symbolic links are
 * resolved on the engine's host, which the manager cannot see: a link inside an allowed prefix
 * that points outside it is the administrator's to avoid, as with Kubernetes' allowedHostPaths.
 */
export function normaliseHostPath(path: string): string {
  const normalised = posix.normalize(path);
  return normalised.length > 1 && normalised.endsWith('/') ? normalised.slice(0, -1) : normalised;
}

export function isUnderPrefixes(path: string, prefixes: readonly string[]): boolean {
  const normalised = normaliseHostPath(path);
  return prefixes.some((prefix) => prefix === '/' || normalised === prefix || normalised.startsWith(`${prefix}/`));
}

/** Why a host path is refused: `: /etc is outside /data, /var/log/apps`. */
export function outsideDetail(path: string, prefixes: readonly string[]): string {
  if (path === '') return ': no source path';
  const shown = path.startsWith('/') ? normaliseHostPath(path) : path;
  return prefixes.length === 0 ? `: ${shown} is a host path (none are allowed)` : `: ${shown} is outside ${prefixes.join(', ')}`;
}
