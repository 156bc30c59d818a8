import type { Container, Node } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { SwarmLabels, moveEnvDirectivesToLabels, parseExpression, swarmDirectives, type Expression } from '@swarm/plugin-sdk/helpers';
import { containerObject } from '../access/access-objects.js';
import type { RequestAccess } from '../access/request-access.js';

/** What an affinity matches among a node's containers: a container's ID and name, or a label's values. */
function candidates(containers: readonly Container[], expression: Expression): string[] {
  if (expression.key === 'container') return containers.flatMap((container) => [container.id, container.name]);
  return containers.map((container) => container.labels[expression.key] ?? '');
}

const escapeRegex = (text: string): string => text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/** `node==/^(?:a|b)$/`: the nodes an affinity holds on, as a constraint (soft when it was). */
function nodeConstraint(nodes: readonly string[], soft: boolean): string {
  return `node==${soft ? '~' : ''}/^(?:${nodes.map(escapeRegex).join('|')})$/`;
}

/**
 * Affinities to containers (`container==/web-.*\/`, `container!=db`) and to container labels
 * (`com.example.tier==front`) are judged against the containers the caller may see, so that where
 * another team's containers run neither steers the placement nor shows in a refusal or an
 * explanation. Each becomes a node constraint over the nodes where it holds among the visible
 * containers. Image affinities stay: images are everyone's.
 */
export function scopeAffinities(config: ContainerConfig, nodes: readonly Node[], access: RequestAccess): ContainerConfig {
  const moved = moveEnvDirectivesToLabels(config);
  const affinities = swarmDirectives(moved, 'affinities');
  const scoped = affinities
    .map((source) => ({ source, expression: parseExpression(source) }))
    .filter(({ expression }) => expression.key !== 'image');
  if (scoped.length === 0) return config;
  const visibleOn = new Map(
    nodes.map((node) => [node.name, node.containers().filter((container) => access.sees(containerObject(container)))]),
  );
  const constraints = scoped.map(({ expression }) =>
    nodeConstraint(
      nodes.filter((node) => expression.matches(candidates(visibleOn.get(node.name) ?? [], expression))).map((node) => node.name),
      expression.soft,
    ),
  );
  const kept = affinities.filter((source) => !scoped.some((entry) => entry.source === source));
  const labels: Record<string, string> = { ...(moved.Labels ?? {}) };
  labels[SwarmLabels.constraints] = JSON.stringify([...swarmDirectives(moved, 'constraints'), ...constraints]);
  if (kept.length > 0) labels[SwarmLabels.affinities] = JSON.stringify(kept);
  else delete labels[SwarmLabels.affinities];
  return { ...moved, Labels: labels };
}
