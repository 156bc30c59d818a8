import {
  ErrorCodes,
  isSwarmError,
  SwarmError,
  type ErrorCode,
  type Filter,
  type Logger,
  type Node,
  type NodeTable,
  type Placement,
  type PlacementExplanation,
  type PlacementRequest,
  type RankedNode,
  type Scheduler,
  type Strategy,
} from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { SdkErrors, moveEnvDirectivesToLabels, requestedCpus, requestedMemory } from '@swarm/plugin-sdk/helpers';
import { buildExplanation, type Outcome } from './explanation.js';
import { isPluginFault, PassScratch, runFilters, type FilterSites } from './filter-pass.js';
import { pluginGuard, type PluginGuard } from '../plugins/plugin-guard.js';
import { NodeTables } from './node-tables.js';
import { availabilitySummary, exhaustingFilter, filtersRefusal } from './refusal-text.js';
import { CoreErrors } from '../errors.js';

export interface SchedulerOptions {
  /** Every real placement's explanation is logged here at debug level. */
  readonly logger?: Logger;
  /**
   * How many ranked candidates a real placement returns (drivers take the first and fall back
   * on the next ones). Default 8; explanations always rank every node.
   */
  readonly candidates?: number;
  /** Told of every real placement (not of explanations), after it is decided. */
  readonly onPlacement?: (request: PlacementRequest, outcome: PlacementOutcome) => void;
  /** The package (`name@version`) that provides a filter or strategy, named when it fails; built-ins have none. */
  readonly pluginOf?: (kind: 'filter' | 'strategy', name: string) => string | undefined;
  /** The deployment's guard (its metrics sink and the watchdog's marks); one of its own otherwise, from `pluginOf`. */
  readonly guard?: PluginGuard;
}

/** A real placement as `onPlacement` hears it: the ranked candidates, best first. */
export interface PlacementOutcome {
  readonly ranked: readonly RankedNode[];
  readonly strategy: string;
  /** Nodes that passed every filter. */
  readonly feasible: number;
  /** Nodes the filters ran on. */
  readonly considered: number;
}

const DEFAULT_CANDIDATES = 8;

interface Attempt extends Outcome {
  readonly code?: ErrorCode;
}

const DEBUG_LEVELS = new Set(['debug', 'trace']);

function rankFeasible(
  strategy: Strategy,
  request: PlacementRequest,
  table: NodeTable,
  limit: number | undefined,
  pipeline: Pipeline,
): RankedNode[] | SwarmError {
  const { guard, rankSite } = pipeline;
  const outer = guard.marks.enter(rankSite);
  const started = performance.now();
  let ranked: RankedNode[];
  try {
    ranked = strategy.rank(request, table.nodes, limit, table);
  } catch (error) {
    if (isSwarmError(error)) {
      if (isPluginFault(error)) throw error;
      return error;
    }
    guard.observe('strategy', strategy.name, (performance.now() - started) / 1000, 'failed');
    throw guard.failed('strategy', strategy.name, error, { hook: 'rank()' });
  } finally {
    guard.marks.exit(outer);
  }
  guard.observe('strategy', strategy.name, (performance.now() - started) / 1000, 'ok');
  if (!Array.isArray(ranked)) {
    const returned = (ranked as unknown) instanceof Promise ? 'a Promise' : typeof ranked;
    throw guard.broke('strategy', strategy.name, `rank() must return the ranked nodes (an array) synchronously; it returned ${returned}`);
  }
  if (limit !== undefined) ranked = ranked.slice(0, limit);
  return ranked.length > 0 ? ranked : SdkErrors.noResources();
}

/** One scheduler's filters and strategy, with what its passes reuse. */
interface Pipeline {
  readonly filters: readonly Filter[];
  readonly strategy: Strategy;
  readonly guard: PluginGuard;
  readonly scratch: PassScratch;
  readonly filterSites: readonly FilterSites[];
  readonly rankSite: number;
}

function attempt(pipeline: Pipeline, request: PlacementRequest, table: NodeTable, softDropped: boolean, limit?: number): Attempt {
  const { filters, strategy, guard } = pipeline;
  const pass = runFilters(filters, request, table, guard, pipeline.scratch, pipeline.filterSites);
  const base = { pass, strategy: strategy.name, softDropped };
  if (pass.feasible.length === 0) {
    const summary = availabilitySummary(pass, 0, 0);
    const code = pass.filters[exhaustingFilter(pass)]?.run?.refusalMessage ? ErrorCodes.NO_NODE_AVAILABLE : ErrorCodes.FILTER_UNSATISFIED;
    return { ...base, ranked: [], summary, error: `${filtersRefusal(pass)}\n${summary}`, code };
  }
  const ranked = rankFeasible(strategy, request, pass.feasibleTable, limit, pipeline);
  if (ranked instanceof SwarmError) {
    const summary = availabilitySummary(pass, 0, pass.feasible.length);
    return { ...base, ranked: [], summary, error: `${ranked.message}\n${summary}`, code: ranked.code };
  }
  // With a limit the ranking is cut short, so the summary is left to the full explanation.
  const summary = limit === undefined ? availabilitySummary(pass, ranked.length, pass.feasible.length - ranked.length) : '';
  return { ...base, ranked, summary };
}

/** Soft expressions first; when that finds no node, once more without them (Swarm classic). */
function place(pipeline: Pipeline, request: PlacementRequest, table: NodeTable, limit?: number): Attempt {
  const first = attempt(pipeline, request, table, false, limit);
  if (first.error === undefined || !request.soft || !first.pass.usesSoft) return first;
  return attempt(pipeline, { ...request, soft: false }, table, true, limit);
}

function emptyClusterExplanation(filters: readonly Filter[], strategy: Strategy): PlacementExplanation {
  return {
    strategy: strategy.name,
    filters: filters.map((filter) => filter.name),
    softDropped: false,
    nodes: [],
    summary: '0/0 nodes are available.',
    error: CoreErrors.noNodes().message,
  };
}

function invalidRequestExplanation(
  filters: readonly Filter[],
  strategy: Strategy,
  nodes: readonly Node[],
  message: string,
  reason: string,
): PlacementExplanation {
  return {
    strategy: strategy.name,
    filters: filters.map((filter) => filter.name),
    softDropped: false,
    nodes: nodes.map((node) => ({ id: node.id, name: node.name, verdicts: [], feasible: false })),
    summary: `0/${nodes.length} nodes are available: ${reason}.`,
    error: message,
  };
}

/**
 * A lazily built explanation (a full, unlimited ranking), so placements that nobody inspects
 * cost no per-node objects.
 */
function lazyPlacement(ranked: readonly RankedNode[], explain: () => PlacementExplanation): Placement {
  let explanation: PlacementExplanation | undefined;
  return {
    ranked,
    get explanation() {
      explanation ??= explain();
      return explanation;
    },
  };
}

/**
 * The scheduler pipeline: filters in order (each node stops at its first failing filter), then
 * the strategy's ranking. Pure and synchronous: it reads nodes from memory and copies nothing.
 */
export function createScheduler(filters: readonly Filter[], strategy: Strategy, options: SchedulerOptions = {}): Scheduler {
  const filterNames = Object.freeze(filters.map((filter) => filter.name));
  const logger = options.logger;
  const candidates = options.candidates ?? DEFAULT_CANDIDATES;
  const tables = new NodeTables();
  const guard =
    options.guard ??
    pluginGuard((kind, name) => (kind === 'filter' || kind === 'strategy' ? options.pluginOf?.(kind, name) : undefined), logger);
  const site = (kind: 'filter' | 'strategy', name: string, hook: string) =>
    guard.marks.site(`${kind} "${name}" (${guard.labelOf(kind, name)}) in ${hook}`);
  const pipeline: Pipeline = {
    filters,
    strategy,
    guard,
    scratch: new PassScratch(),
    filterSites: filters.map((filter) => ({
      prepare: site('filter', filter.name, 'prepare()'),
      check: site('filter', filter.name, 'check()'),
    })),
    rankSite: site('strategy', strategy.name, 'rank()'),
  };
  const placeOn = (request: PlacementRequest, nodes: readonly Node[], limit?: number): Attempt =>
    tables.use(nodes, (table) => place(pipeline, request, table, limit));
  return {
    strategyName: strategy.name,
    filterNames,
    request(config: ContainerConfig, name?: string): PlacementRequest {
      const moved = moveEnvDirectivesToLabels(config);
      return { config: moved, name, cpus: requestedCpus(moved), memory: requestedMemory(moved), soft: true };
    },
    select(request, nodes) {
      if (nodes.length === 0) throw CoreErrors.noNodes();
      const outcome = placeOn(request, nodes, candidates);
      if (outcome.error !== undefined) {
        throw CoreErrors.placementRefused(
          { code: outcome.code ?? ErrorCodes.FILTER_UNSATISFIED, text: outcome.error },
          { details: { explanation: buildExplanation(outcome) } },
        );
      }
      const placement = lazyPlacement(outcome.ranked, () => buildExplanation(placeOn(request, nodes)));
      options.onPlacement?.(request, {
        ranked: outcome.ranked,
        strategy: strategy.name,
        feasible: outcome.pass.feasible.length,
        considered: nodes.length,
      });
      if (logger && DEBUG_LEVELS.has(logger.level)) {
        logger.debug({ explanation: placement.explanation, container: request.name }, `placed on ${outcome.ranked[0]!.node.name}`);
      }
      return placement;
    },
    explain(request, nodes) {
      if (nodes.length === 0) return emptyClusterExplanation(filters, strategy);
      try {
        return buildExplanation(placeOn(request, nodes));
      } catch (error) {
        if (isSwarmError(error)) {
          const reason = typeof error.details?.reason === 'string' ? error.details.reason : error.message;
          return invalidRequestExplanation(filters, strategy, nodes, error.message, reason);
        }
        throw error;
      }
    },
  };
}
