/** Docker's bind modes: a second part made only of these is `dst:mode`, not `src:dst`. */
const MODES = new Set([
  'rw',
  'ro',
  'z',
  'Z',
  'nocopy',
  'consistent',
  'cached',
  'delegated',
  'shared',
  'rshared',
  'slave',
  'rslave',
  'private',
  'rprivate',
  'ro-non-recursive',
  'ro-force-recursive',
  'rro',
]);

/** A volume name as Docker accepts it; any other source is a path on the engine's host. */
const VOLUME_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** One `HostConfig.Binds` entry: `[source:]destination[:modes]`. */
export interface ParsedBind {
  /** A host path to bind; absent for a named or anonymous volume. */
  readonly hostPath?: string;
  readonly modes: readonly string[];
}

const isModes = (text: string) => text.split(',').every((mode) => MODES.has(mode));

/**
 * Read as the engine reads it (moby's `parseMountRaw` on Linux): one part is a destination
 * (an anonymous volume), two parts are `src:dst` unless the second is a mode list, three are
 * `src:dst:modes`. A Windows path (`C:\data`, `\\.\pipe\x`) is a host path that no POSIX prefix
 * allows.
 */
export function parseBind(raw: string): ParsedBind {
  if (/^[a-zA-Z]:[\\/]/.test(raw) || raw.startsWith('\\\\')) {
    const end = raw.indexOf(':', 2);
    return { hostPath: end < 0 ? raw : raw.slice(0, end), modes: [] };
  }
  const parts = raw.split(':');
  const source = parts[0] ?? '';
  if (parts.length === 1) return { modes: [] };
  if (parts.length === 2 && isModes(parts[1]!)) return { modes: parts[1]!.split(',') };
  const modes = parts.length >= 3 ? parts[2]!.split(',') : [];
  return VOLUME_NAME.test(source) ? { modes } : { hostPath: source, modes };
}

/** Propagation that lets the container's mounts appear on the host (Kubernetes' Bidirectional, privileged only there). */
export function isSharedPropagation(mode: string): boolean {
  return mode === 'shared' || mode === 'rshared';
}
