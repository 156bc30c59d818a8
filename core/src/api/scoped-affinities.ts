import type { Container, Image, Node } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import {
  SwarmLabels,
  moveEnvDirectivesToLabels,
  parseExpression,
  repositoryOf,
  swarmDirectives,
  type Expression,
} from '@swarm/plugin-sdk/helpers';
import { containerObject, imageObject } from '../access/access-objects.js';
import type { RequestAccess } from '../access/request-access.js';

/** What the caller sees on one node. */
interface Visible {
  readonly containers: readonly Container[];
  readonly images: readonly Image[];
}

/**
 * What an affinity matches among what the caller sees on a node, as the affinity filter matches it:
 * a container's ID and name, an image's ID (with and without `sha256:`), tags and repositories, or a
 * container label's values.
 */
function candidates(visible: Visible, expression: Expression): string[] {
  if (expression.key === 'container') return visible.containers.flatMap((container) => [container.id, container.name]);
  if (expression.key === 'image') {
    return visible.images.flatMap((image) => [
      image.id,
      ...(image.id.startsWith('sha256:') ? [image.id.slice('sha256:'.length)] : []),
      ...image.repoTags.flatMap((tag) => [tag, repositoryOf(tag)]),
    ]);
  }
  return visible.containers.map((container) => container.labels[expression.key] ?? '');
}

const escapeRegex = (text: string): string => text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/** `node==/^(?:a|b)$/`: the nodes an affinity holds on, as a constraint (soft when it was). */
function nodeConstraint(nodes: readonly string[], soft: boolean): string {
  return `node==${soft ? '~' : ''}/^(?:${nodes.map(escapeRegex).join('|')})$/`;
}

/**
 * Affinities to containers (`container==/web-.*\/`, `container!=db`), to container labels
 * (`com.example.tier==front`) and to images (`image==app`: a team's own images are theirs) are
 * judged against what the caller may see, so that where another team's containers and images are
 * neither steers the placement nor shows in a refusal or an explanation. Each becomes a node
 * constraint over the nodes where it holds among the visible objects.
 */
export function scopeAffinities(config: ContainerConfig, nodes: readonly Node[], access: RequestAccess): ContainerConfig {
  const moved = moveEnvDirectivesToLabels(config);
  const scoped = swarmDirectives(moved, 'affinities').map((source) => parseExpression(source));
  if (scoped.length === 0) return config;
  const needsImages = scoped.some((expression) => expression.key === 'image');
  const visibleOn = new Map(
    nodes.map((node): [string, Visible] => [
      node.name,
      {
        containers: node.containers().filter((container) => access.sees(containerObject(container))),
        images: needsImages ? node.images().filter((image) => access.sees(imageObject(image))) : [],
      },
    ]),
  );
  const nothing: Visible = { containers: [], images: [] };
  const constraints = scoped.map((expression) =>
    nodeConstraint(
      nodes.filter((node) => expression.matches(candidates(visibleOn.get(node.name) ?? nothing, expression))).map((node) => node.name),
      expression.soft,
    ),
  );
  const labels: Record<string, string> = { ...(moved.Labels ?? {}) };
  labels[SwarmLabels.constraints] = JSON.stringify([...swarmDirectives(moved, 'constraints'), ...constraints]);
  delete labels[SwarmLabels.affinities];
  return { ...moved, Labels: labels };
}
