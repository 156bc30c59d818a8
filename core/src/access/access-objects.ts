import type { Container, Image, Network, Volume } from '@swarm/plugin-sdk';
import type { AccessObject } from '@swarm/plugin-sdk/access';

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

/** The string labels of an engine summary (`Labels` may be null or hold anything in a JSON answer). */
function labelsOf(value: unknown): Readonly<Record<string, string>> {
  if (typeof value !== 'object' || value === null) return NO_LABELS;
  const labels: Record<string, string> = {};
  for (const [key, label] of Object.entries(value)) if (typeof label === 'string') labels[key] = label;
  return labels;
}

export function containerObject(container: Container): AccessObject {
  return { kind: 'container', id: container.id, name: container.name, labels: container.labels ?? NO_LABELS, node: container.node.name };
}

export function networkObject(network: Network): AccessObject {
  return { kind: 'network', id: network.id, name: network.name, labels: labelsOf(network.summary.Labels), node: network.node.name };
}

export function volumeObject(volume: Volume): AccessObject {
  return { kind: 'volume', name: volume.name, labels: labelsOf(volume.summary.Labels), node: volume.node.name };
}

/**
 * An image on one node: its labels are its config's, so the owner labels a build, commit or import
 * wrote travel with it (a save and load, a push and pull) and are the engine's to keep.
 */
export function imageObject(image: Image): AccessObject {
  const name = image.repoTags.find((tag) => tag !== '<none>:<none>');
  return { kind: 'image', id: image.id, ...(name ? { name } : {}), labels: labelsOf(image.summary.Labels), node: image.node.name };
}

/** An image as a row of an engine's answer (`system df`'s `Images`) shows it: its ID and labels. */
export function imageRowObject(row: Readonly<Record<string, unknown>>): AccessObject {
  return { kind: 'image', ...(typeof row.Id === 'string' ? { id: row.Id } : {}), labels: labelsOf(row.Labels) };
}

/** An object known only by what names it (an image reference, a plugin name). */
export function namedObject(kind: AccessObject['kind'], name: string): AccessObject {
  return { kind, name, labels: NO_LABELS };
}
