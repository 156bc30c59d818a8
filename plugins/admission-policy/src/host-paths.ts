import { posix } from 'node:path';

/** One `allowedHostPaths` entry: a prefix, mounted read-only unless the operator said otherwise. */
export interface HostPathEntry {
  /** Normalised, without a trailing slash. */
  readonly path: string;
  readonly readOnly: boolean;
}

/**
 * Host paths are compared normalised (`/data//x/` is `/data/x`) and by whole path segments, so
 * `/data` allows `/data/x` but not `/database`. A `..` segment is never normalised away but refused
 * (see `hasParentSegment`): the engine's host resolves it after any symbolic link before it.
 */
export function normaliseHostPath(path: string): string {
  const normalised = posix.normalize(path);
  return normalised.length > 1 && normalised.endsWith('/') ? normalised.slice(0, -1) : normalised;
}

/**
 * `/data/link/..` is not `/data` on the host when `link` is a symbolic link: the kernel follows the
 * link first and `..` then leaves its target. Without the host's filesystem the manager cannot tell,
 * so any `..` segment is refused.
 */
export function hasParentSegment(path: string): boolean {
  return path.split('/').includes('..');
}

const isUnder = (path: string, prefix: string) => prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);

/** The most specific entry a path is under (the longest prefix), if any. */
export function entryFor(path: string, entries: readonly HostPathEntry[]): HostPathEntry | undefined {
  const normalised = normaliseHostPath(path);
  let found: HostPathEntry | undefined;
  for (const entry of entries) {
    if (isUnder(normalised, entry.path) && (found === undefined || entry.path.length > found.path.length)) found = entry;
  }
  return found;
}

/** Is `inner` the same path as `outer`, or below it? */
export function isWithin(inner: string, outer: string): boolean {
  return isUnder(inner, outer);
}

/** Why a host path is refused: `: /etc is outside /data, /var/log/apps`. */
export function outsideDetail(path: string, entries: readonly HostPathEntry[]): string {
  if (path === '') return ': no source path';
  const shown = path.startsWith('/') ? normaliseHostPath(path) : path;
  return entries.length === 0
    ? `: ${shown} is a host path (none are allowed)`
    : `: ${shown} is outside ${entries.map((entry) => entry.path).join(', ')}`;
}
