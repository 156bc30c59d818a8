import { memoizeByList, repositoryOf, type Container, type Image } from '@swarm/plugin-sdk';

/** Every container's ID and name. */
export const containerIdentities = memoizeByList((containers: readonly Container[]) =>
  containers.flatMap((container) => [container.id, container.name]),
);

/** Every image's ID (with and without `sha256:`), each `repo:tag` and its repository. */
export const imageIdentities = memoizeByList((images: readonly Image[]) =>
  images.flatMap((image) => [
    image.id,
    ...(image.id.startsWith('sha256:') ? [image.id.slice('sha256:'.length)] : []),
    ...image.repoTags.flatMap((tag) => [tag, repositoryOf(tag)]),
  ]),
);
