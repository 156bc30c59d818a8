import { memoizeByList, repositoryOf, type Container, type Image } from '@swarm/plugin-sdk';

// Sets: a plain expression value (no glob or regex syntax) is then one lookup per node.

/** Every container's ID and name. */
export const containerIdentities = memoizeByList(
  (containers: readonly Container[]): ReadonlySet<string> => new Set(containers.flatMap((container) => [container.id, container.name])),
);

/** Every image's ID (with and without `sha256:`), each `repo:tag` and its repository. */
export const imageIdentities = memoizeByList(
  (images: readonly Image[]): ReadonlySet<string> =>
    new Set(
      images.flatMap((image) => [
        image.id,
        ...(image.id.startsWith('sha256:') ? [image.id.slice('sha256:'.length)] : []),
        ...image.repoTags.flatMap((tag) => [tag, repositoryOf(tag)]),
      ]),
    ),
);

// A handful of label keys per node at most; more (unusual) starts the node's cache afresh.
const MAX_LABEL_KEYS = 16;
const labelsByKey = memoizeByList((_containers: readonly Container[]) => new Map<string, ReadonlySet<string>>());

/** Every container's value of label `key` ("" for a container without it). */
export function containerLabels(containers: readonly Container[], key: string): ReadonlySet<string> {
  const byKey = labelsByKey(containers);
  let values = byKey.get(key);
  if (values === undefined) {
    if (byKey.size >= MAX_LABEL_KEYS) byKey.clear();
    values = new Set(containers.map((container) => container.labels[key] ?? ''));
    byKey.set(key, values);
  }
  return values;
}
