import type { Node } from '../node.js';
import type { NodeTable } from '../node-table.js';
import { NodeColumns } from '../helpers/node-columns.js';
import { moveEnvDirectivesToLabels, requestedCpus, requestedMemory } from '../helpers/swarm-labels.js';
import type { Filter, FilterRun, FilterVerdict, PlacementRequest } from '../scheduler.js';
import type { ContainerConfig } from '../types/docker.js';
import { toContainerConfig, type RunSpec } from './run-config.js';

/**
 * The request the host builds for a config: env directives moved to labels, CPUs and memory read
 * as Swarm classic does; the soft pass unless `soft: false`.
 */
export function placementRequest(config: ContainerConfig | RunSpec, options: { name?: string; soft?: boolean } = {}): PlacementRequest {
  const moved = moveEnvDirectivesToLabels(toContainerConfig(config));
  return { config: moved, name: options.name, cpus: requestedCpus(moved), memory: requestedMemory(moved), soft: options.soft ?? true };
}

export interface FilterOutcome {
  readonly run: FilterRun | undefined;
  /** Verdict per node name, in the order of the nodes. */
  readonly verdicts: ReadonlyMap<string, FilterVerdict>;
  readonly passing: string[];
  /** Reason per failing node name. */
  readonly reasons: Record<string, string>;
}

/**
 * Prepare the filter for the request and check every node, as the pipeline does: with the nodes'
 * NodeTable (`table`, or one read from the nodes now).
 */
export function evaluateFilter(
  filter: Filter,
  request: PlacementRequest,
  nodes: readonly Node[],
  table: NodeTable = NodeColumns.of(nodes),
): FilterOutcome {
  const run = filter.prepare(request, table);
  const verdicts = new Map<string, FilterVerdict>();
  const passing: string[] = [];
  const reasons: Record<string, string> = {};
  for (let row = 0; row < nodes.length; row++) {
    const node = nodes[row]!;
    const verdict: FilterVerdict = run ? run.check(node, row) : { pass: true };
    verdicts.set(node.name, verdict);
    if (verdict.pass) passing.push(node.name);
    else reasons[node.name] = verdict.reason;
  }
  return { run, verdicts, passing, reasons };
}
