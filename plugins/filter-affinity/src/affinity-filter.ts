import {
  conditionWithSoftness,
  createExpressionFilter,
  repositoryOf,
  type Expression,
  type Filter,
 
  type Node,
 
} from '@swarm/plugin-sdk';

function* containerIdentities(node: Node): Iterable<string> {
  for (const container of node.containers()) {
    yield container.id;
    yield container.name;
  }
}

/** Image ID (with and without `sha256:`), every `repo:tag` and its repository. */
function* imageIdentities(node: Node): Iterable<string> {
  for (const image of node.images()) {
    yield image.id;
    if (image.id.startsWith('sha256:')) yield image.id.slice('sha256:'.length);
    for (const tag of image.repoTags) {
      yield tag;
      yield repositoryOf(tag);
    }
  }
}

function* containerLabels(node: Node, key: string): Iterable<string> {
  for (const container of node.containers()) yield container.labels[key] ?? '';
}

function nodeMatches(expression: Expression, node: Node): boolean {
  switch (expression.key) {
    case 'container':
      return expression.matches(containerIdentities(node));
    case 'image':
      return expression.matches(imageIdentities(node));
    default:
      return expression.matches(containerLabels(node, expression.key));
  }
}

/**
 * Swarm classic's affinity filter: `container==x` (a container ID or name on the node),
 * `image==x` (an image there), any other key a label of a container there; `!=` means none.
 */
export function createAffinityFilter(): Filter {
  return createExpressionFilter({ filter: 'affinity', directive: 'affinities', condition: conditionWithSoftness, matches: nodeMatches });
}
