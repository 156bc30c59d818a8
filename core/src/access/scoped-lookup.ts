import type { Container, Network, Volume } from '@swarm/plugin-sdk';

/*
 * Look-ups among the objects a caller may see. The cluster resolves a reference among all objects
 * (ID, name, `node/name`, unique ID prefix); when that finds nothing visible, the same rules run
 * again over the visible ones alone, so that another team's objects neither shadow the caller's
 * (a name equal to one of the caller's ID prefixes) nor make a prefix ambiguous: an answer that
 * depended on them would tell the caller they exist.
 */

/** Classic's order: full ID, then name (with or without its `node/` prefix), then unique ID prefix. */
function resolveAmong<T>(
  candidates: readonly T[],
  reference: string,
  idOf: (item: T) => string | undefined,
  namesOf: (item: T) => readonly string[],
): T | undefined {
  const byId = candidates.find((item) => idOf(item) === reference);
  if (byId) return byId;
  const byName = candidates.filter((item) => namesOf(item).includes(reference));
  if (byName.length === 1) return byName[0];
  if (byName.length > 1) return undefined;
  const byPrefix = reference.length > 0 ? candidates.filter((item) => idOf(item)?.startsWith(reference)) : [];
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}

export function scopedFind<T>(
  reference: string,
  findInAll: (reference: string) => T | undefined,
  visible: () => readonly T[],
  sees: (item: T) => boolean,
  idOf: (item: T) => string | undefined,
  namesOf: (item: T) => readonly string[],
): T | undefined {
  const found = findInAll(reference);
  if (found !== undefined && sees(found)) return found;
  return resolveAmong(visible(), reference, idOf, namesOf);
}

export const containerKeys = {
  idOf: (container: Container): string => container.id,
  namesOf: (container: Container): readonly string[] => [container.name, `${container.node.name}/${container.name}`],
};

export const networkKeys = {
  idOf: (network: Network): string => network.id,
  namesOf: (network: Network): readonly string[] => [network.name, `${network.node.name}/${network.name}`],
};

export const volumeKeys = {
  idOf: (): undefined => undefined,
  namesOf: (volume: Volume): readonly string[] => [volume.name, `${volume.node.name}/${volume.name}`],
};
