import type { Node } from '@swarm/plugin-sdk';

/**
 * The Engine API versions the front implements. Up to BASELINE every engine since dockerd 20.10
 * speaks the same API the front was written for; each version after it, up to NEWEST, is served
 * once every engine speaks it (the README's "Engine API versions" lists what each step adds and
 * how the front treats it). OLDEST is the oldest a client may ask for.
 */
export const NEWEST_API_VERSION = '1.45';
export const BASELINE_API_VERSION = '1.41';
export const OLDEST_API_VERSION = '1.12';

export interface ServedApiVersions {
  /** What /version's ApiVersion and /_ping's API-Version announce: clients negotiate down to it. */
  readonly max: string;
  readonly min: string;
}

/** `1.9` < `1.41` < `1.45`: compared as numbers, part by part. */
export function compareApiVersions(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}

const VERSION = /^\d+\.\d+$/;

/**
 * The versions a client may use so that every engine accepts what the front forwards with the
 * client's own version: the highest all engines support, up to NEWEST, and the lowest all accept
 * (dockerd 25 and later refuse anything below 1.24). A node that does not say (a node of a
 * driver without engines of its own, an engine not yet connected) adds no bound; with none that
 * says, the front serves BASELINE, what its other drivers' engine emulators speak.
 */
export function servedApiVersions(nodes: readonly Node[]): ServedApiVersions {
  let max: string | undefined;
  let min = OLDEST_API_VERSION;
  for (const node of nodes) {
    const versions = node.snapshot().apiVersions;
    if (versions === undefined || !VERSION.test(versions.max)) continue;
    if (max === undefined || compareApiVersions(versions.max, max) < 0) max = versions.max;
    if (VERSION.test(versions.min) && compareApiVersions(versions.min, min) > 0) min = versions.min;
  }
  if (max === undefined) return { max: BASELINE_API_VERSION, min };
  return { max: compareApiVersions(max, NEWEST_API_VERSION) < 0 ? max : NEWEST_API_VERSION, min };
}
