import type { PlacementRequest } from './scheduler.js';
import { moveEnvDirectivesToLabels, requestedCpus, requestedMemory } from './swarm-labels.js';
import type { ContainerConfig } from './types/docker.js';

/**
 * The request the host's scheduler builds for a create config: env directives moved to labels,
 * CPUs and memory read as Swarm classic does, soft expressions on (first pass).
 */
export function buildPlacementRequest(config: ContainerConfig, name?: string): PlacementRequest {
  const moved = moveEnvDirectivesToLabels(config);
  return { config: moved, name, cpus: requestedCpus(moved), memory: requestedMemory(moved), soft: true };
}
