import type { Container, Image, Node } from '@swarm/plugin-sdk';
import { OWNER_LABEL, TEAM_LABEL, type AccessObject } from '@swarm/plugin-sdk/access';
import { containerObject, imageObject } from './access-objects.js';

/*
 * Images as a caller with a narrower view finds them. Every engine resolves an image name on its
 * own (the same name may be alice's image on one node and a pulled one on another), so a name is
 * judged per node: what it names there, and whether the caller may see that.
 */

/** Whether the caller sees an object. */
export type Sees = (object: AccessObject) => boolean;

/** One node's copy of the image a reference names there. */
export interface ImageCopy {
  readonly node: Node;
  readonly image: Image;
}

/**
 * The copies a reference acts on, by Swarm classic's rule for objects every engine holds its own
 * copy of: every node that resolves it; when none does and it is `node/name`, that node's copy.
 */
export function imageCopies(nodes: readonly Node[], reference: string): ImageCopy[] {
  const everywhere = nodes.flatMap((node) => {
    const image = node.image(reference);
    return image ? [{ node, image }] : [];
  });
  if (everywhere.length > 0) return everywhere;
  const slash = reference.indexOf('/');
  if (slash <= 0) return [];
  const node = nodes.find((candidate) => candidate.name === reference.slice(0, slash));
  const image = node?.image(reference.slice(slash + 1));
  return node && image ? [{ node, image }] : [];
}

/** The first copy of what a reference names that the caller may see. */
export function visibleImage(nodes: readonly Node[], reference: string, sees: Sees): Image | undefined {
  return imageCopies(nodes, reference).find((copy) => sees(imageObject(copy.image)))?.image;
}

/** Whether an image carries the manager's owner labels: it was made through the manager and is its maker's team's. */
export function isOwnedImage(image: Image): boolean {
  const labels = imageObject(image).labels;
  return labels[OWNER_LABEL] !== undefined || labels[TEAM_LABEL] !== undefined;
}

/** `busybox` is `busybox:latest`; a digest or a tag stays as it is. */
export function withDefaultTag(reference: string): string {
  if (reference.includes('@')) return reference;
  const lastPart = reference.slice(reference.lastIndexOf('/') + 1);
  return lastPart.includes(':') ? reference : `${reference}:latest`;
}

/** Docker Hub's short names: `docker.io/library/busybox:1` is listed (and said) as `busybox:1`. */
export function familiar(reference: string): string {
  return reference.replace(/^(docker\.io|index\.docker\.io)\//, '').replace(/^library\//, '');
}

/** Images whose tags include a name (`repo:tag`), on any node. */
export function holdersOfName(nodes: readonly Node[], name: string): Image[] {
  const wanted = familiar(withDefaultTag(name));
  return nodes.flatMap((node) => node.images().filter((image) => image.repoTags.includes(wanted)));
}

/**
 * Whether a name may come to name an image of the given kind (`owned`: the caller's team's;
 * `shared`: a pulled one): every image the name now names must be one the caller sees, and a
 * name a shared image holds passes only to a shared image, since every team's containers may be
 * made from it (a team's image under `busybox:latest` would run in theirs).
 */
export function mayTakeName(nodes: readonly Node[], name: string, becomes: 'owned' | 'shared', sees: Sees): boolean {
  return holdersOfName(nodes, name).every((image) => sees(imageObject(image)) && (becomes === 'shared' || isOwnedImage(image)));
}

/** Containers the caller may not see that were made from an image (by its ID, on its node). */
export function hiddenUsers(image: Image, containers: readonly Container[], sees: Sees): Container[] {
  return containers.filter(
    (container) => container.node.name === image.node.name && container.imageId === image.id && !sees(containerObject(container)),
  );
}

/**
 * The image an image event is about. dockerd copies the image's labels into the event's attributes
 * while the image exists; a `delete` comes once it is gone, so the cluster's list (which may still
 * hold it) is asked, and a deleted image known neither way is shown to no scoped caller.
 */
export function imageEventObject(
  event: { readonly action: string; readonly id?: string; readonly node?: string; readonly attributes: Readonly<Record<string, string>> },
  known: readonly Image[],
): AccessObject | undefined {
  const { action, id, node, attributes } = event;
  const object: AccessObject = { kind: 'image', ...(id ? { id } : {}), labels: attributes, ...(node ? { node } : {}) };
  if (attributes[OWNER_LABEL] !== undefined || attributes[TEAM_LABEL] !== undefined || action !== 'delete') return object;
  const image = known.find((candidate) => candidate.id === id && (node === undefined || candidate.node.name === node));
  return image ? imageObject(image) : undefined;
}
