import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PolicyErrors } from './errors.js';
import { normaliseHostPath, isWithin, type HostPathEntry } from './host-paths.js';
import { profileDigest } from './seccomp-digest.js';

export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function list(value: unknown, path: string, expected: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw PolicyErrors.optionType({ path, expected, got: value });
  return value;
}

export function nonEmptyString(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw PolicyErrors.optionType({ path, expected: 'a non-empty string', got: value });
  return value;
}

function absolutePath(value: unknown, path: string): string {
  const text = nonEmptyString(value, path);
  if (!text.startsWith('/')) throw PolicyErrors.hostPathRelative({ path, got: text });
  return normaliseHostPath(text);
}

const HOST_PATH_KEYS = ['path', 'readOnly'];

/** `'/data'` (read-only) or `{ path: '/data', readOnly: false }`. */
function hostPathEntry(value: unknown, path: string): HostPathEntry {
  if (!isRecord(value)) return { path: absolutePath(value, path), readOnly: true };
  for (const key of Object.keys(value)) {
    if (!HOST_PATH_KEYS.includes(key)) throw PolicyErrors.optionUnknown({ path: `${path}.${key}`, known: HOST_PATH_KEYS });
  }
  const readOnly = value['readOnly'] ?? true;
  if (typeof readOnly !== 'boolean') throw PolicyErrors.optionType({ path: `${path}.readOnly`, expected: 'a boolean', got: readOnly });
  return { path: absolutePath(value['path'], `${path}.path`), readOnly };
}

/**
 * A read-only entry below a writable one is refused: a container that may write the writable
 * entry can replace the directory with a symbolic link, and the read-only bind would follow it.
 */
export function hostPathEntries(value: unknown): readonly HostPathEntry[] {
  const entries = list(value, 'allowedHostPaths', 'a list of absolute paths or { path, readOnly }').map((entry, i) =>
    hostPathEntry(entry, `allowedHostPaths[${i}]`),
  );
  for (const [i, entry] of entries.entries()) {
    const writable = entries.find(
      (other) => !other.readOnly && other !== entry && other.path !== entry.path && isWithin(entry.path, other.path),
    );
    if (writable) throw PolicyErrors.hostPathUnderWritable({ path: `allowedHostPaths[${i}]`, got: entry.path, writable: writable.path });
  }
  return entries;
}

export function names(value: unknown, path: string): readonly string[] {
  return list(value, path, 'a list of names').map((entry, i) => nonEmptyString(entry, `${path}[${i}]`));
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** `sha256:<hex>` digests, or profile files (relative to the config's folder) read and digested once, at start. */
export function seccompDigests(value: unknown, configDir: string): readonly string[] {
  return list(value, 'allowedSeccompProfiles', 'a list of digests or profile files').map((entry, i) => {
    const path = `allowedSeccompProfiles[${i}]`;
    const text = nonEmptyString(entry, path);
    if (text.startsWith('sha256:')) {
      if (!DIGEST.test(text)) throw PolicyErrors.seccompProfile({ path, got: text, reason: 'not 64 lower-case hex digits' });
      return text;
    }
    try {
      const profile = readFileSync(resolve(configDir, text), 'utf8');
      JSON.parse(profile);
      return profileDigest(profile);
    } catch (error) {
      throw PolicyErrors.seccompProfile({ path, got: text, reason: error instanceof Error ? error.message : String(error) });
    }
  });
}

/** Cgroup parents: a path (`/tenants`) or a systemd slice (`tenants.slice`), without `..`. */
export function cgroupParents(value: unknown): readonly string[] {
  return names(value, 'allowedCgroupParents').map((entry, i) => {
    if (entry.split('/').includes('..'))
      throw PolicyErrors.optionType({ path: `allowedCgroupParents[${i}]`, expected: 'a cgroup path without ..', got: entry });
    return entry;
  });
}
