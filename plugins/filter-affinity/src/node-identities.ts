import { type Container, type Image, type Node } from '@swarm/plugin-sdk';
import { memoizeBySnapshot, repositoryOf } from '@swarm/plugin-sdk/helpers';

// Sets: a plain expression value (no glob or regex syntax) is then one lookup per node.

// Image names and label values repeat from node to node. Sharing one string object per value
// keeps a set lookup, which reads the strings it compares, on a few hot strings instead of a
// copy in every node's data. Bounded: past the limit, sharing starts afresh.
const SHARED_LIMIT = 4096;

// A handful of label keys per node at most; more (unusual) starts the node's cache afresh.
const MAX_LABEL_KEYS = 16;

/**
 * What the affinity filter matches on each node, derived from the node's container and image
 * lists and kept with the node's snapshot. One per filter, so that deployments in one process
 * share nothing.
 */
export class NodeIdentities {
  private readonly shared = new Map<string, string>();

  /** Every container's ID and name. */
  readonly containers = memoizeBySnapshot(
    ({ containers }): ReadonlySet<string> => new Set(containers.flatMap((container: Container) => [container.id, container.name])),
  );

  /** Every image's ID (with and without `sha256:`), each `repo:tag` and its repository. */
  readonly images = memoizeBySnapshot(
    ({ images }): ReadonlySet<string> =>
      new Set(
        images
          .flatMap((image: Image) => [
            image.id,
            ...(image.id.startsWith('sha256:') ? [image.id.slice('sha256:'.length)] : []),
            ...image.repoTags.flatMap((tag) => [tag, repositoryOf(tag)]),
          ])
          .map((value) => this.share(value)),
      ),
  );

  private readonly labelsByKey = memoizeBySnapshot(({ containers }) => ({ containers, byKey: new Map<string, ReadonlySet<string>>() }));

  /** Every container's value of label `key` ("" for a container without it). */
  labels(node: Node, key: string): ReadonlySet<string> {
    const { containers, byKey } = this.labelsByKey(node);
    let values = byKey.get(key);
    if (values === undefined) {
      if (byKey.size >= MAX_LABEL_KEYS) byKey.clear();
      values = new Set(containers.map((container) => this.share(container.labels[key] ?? '')));
      byKey.set(key, values);
    }
    return values;
  }

  private share(value: string): string {
    const known = this.shared.get(value);
    if (known !== undefined) return known;
    if (this.shared.size >= SHARED_LIMIT) this.shared.clear();
    this.shared.set(value, value);
    return value;
  }
}
