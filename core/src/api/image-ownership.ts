import { OWNER_LABEL, TEAM_LABEL } from '@swarm/plugin-sdk/access';
import { teamOf } from './access-create.js';
import type { LookupScope } from './lookups.js';
import { CoreErrors } from '../errors.js';

/*
 * Images a caller makes through the manager carry their owner labels, written where the engine
 * reads an image's labels from the request: a build's `labels` (applied after the Dockerfile's own
 * LABELs) and a commit's `changes` (applied after the container's and the caller's). They are the
 * image's config, so they hold across a manager's restart, on every replica, and wherever the
 * image is saved or pushed to.
 */

/**
 * The owner labels of an image the caller makes, or undefined without access control. A caller
 * with a narrower view gets their own whatever the request says (a label naming another team
 * would hand the image to it); one who sees everything (an admin) may make an image for a team.
 */
export function madeImageLabels(scope: LookupScope, requested: Readonly<Record<string, string>> = {}): Record<string, string> | undefined {
  const access = scope.access;
  if (!access || !scope.api.access?.enforcing) return undefined;
  const mine = { [OWNER_LABEL]: access.caller.user, [TEAM_LABEL]: teamOf(access.caller) ?? '' };
  return access.scoped ? { ...requested, ...mine } : { ...mine, ...requested };
}

/** A Dockerfile string, as `LABEL` reads one: double-quoted, with quotes and backslashes escaped. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

/** The `changes` line that writes labels. */
function labelChange(labels: Readonly<Record<string, string>>): string {
  return `LABEL ${Object.entries(labels)
    .map(([key, value]) => `${quoted(key)}=${quoted(value)}`)
    .join(' ')}`;
}

// dockerd joins `changes` into one Dockerfile: a line ending in the escape character (`\`, or the
// backtick an `# escape=` directive picks) would swallow the owner labels' line after it.
const CONTINUED = /[\\`]\s*$/;

/**
 * The `changes` a commit or import sends the engine: the caller's, then the owner labels last, so
 * that they win over any LABEL before them. Undefined without access control (sent as they came).
 */
export function changesWithOwner(scope: LookupScope, requested: readonly string[]): string[] | undefined {
  const labels = madeImageLabels(scope);
  if (!labels) return undefined;
  for (const change of requested) {
    if (change.split(/\r?\n/).some((line) => CONTINUED.test(line))) {
      throw CoreErrors.invalidParameter({
        name: 'changes',
        reason: `${JSON.stringify(change)} continues a line past its end: write each change on whole lines`,
      });
    }
  }
  return [...requested, labelChange(labels)];
}
