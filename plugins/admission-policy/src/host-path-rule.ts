import { entryFor, hasParentSegment, normaliseHostPath, outsideDetail, type HostPathEntry } from './host-paths.js';
import type { Violation } from './violation.js';

const RULE = 'host-path';

/** A host path a request would mount, as one of the request's forms says it. */
export interface HostPathUse {
  readonly path: string;
  /** The field named in a refusal (`HostConfig.Binds[0]`). */
  readonly field: string;
  /** Mounted read-only, submounts included. */
  readonly readOnly: boolean;
  /** The field to name when it is not read-only, and how to make it so. */
  readonly readOnlyField: string;
  readonly readOnlyHint: string;
}

/**
 * A host path is allowed when it is under an `allowedHostPaths` entry and:
 * - has no `..` segment (the host resolves it after symbolic links);
 * - is read-only under a read-only entry;
 * - is the entry itself under a writable entry: anything below a writable entry may be a symbolic
 *   link a container planted there (to `/`), which the engine's host would follow.
 */
export function judgeHostPath(use: HostPathUse, entries: readonly HostPathEntry[]): Violation | undefined {
  const { path, field } = use;
  if (!path.startsWith('/') || path.startsWith('//')) return { rule: RULE, field, detail: outsideDetail(path, entries) };
  if (hasParentSegment(path))
    return { rule: RULE, field, detail: `: ${path} has a .. segment, which the host resolves after any symbolic link before it` };
  const entry = entryFor(path, entries);
  if (!entry) return { rule: RULE, field, detail: outsideDetail(path, entries) };
  const normalised = normaliseHostPath(path);
  if (!entry.readOnly && normalised !== entry.path)
    return {
      rule: RULE,
      field,
      detail: `: ${normalised} is below the writable ${entry.path}, where a container may have planted a symbolic link; bind ${entry.path} itself`,
    };
  if (entry.readOnly && !use.readOnly)
    return {
      rule: RULE,
      field: use.readOnlyField,
      detail: `: ${normalised} is under ${entry.path}, which is allowed read-only (${use.readOnlyHint})`,
    };
  return undefined;
}
