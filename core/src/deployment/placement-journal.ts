import type { Container, PlacementRequest } from '@swarm/plugin-sdk';
import type { PlacementRecord } from '@swarm/plugin-sdk/web';
import { SwarmLabels } from '@swarm/plugin-sdk/helpers';
import type { PlacementOutcome } from '../scheduler/index.js';

export interface PlacementJournalOptions {
  /** Containers remembered (least recently placed forgotten first). */
  readonly capacity?: number;
  /** Placements kept per container (oldest forgotten first). */
  readonly perContainer?: number;
  /** Ranked candidates kept per placement. */
  readonly candidates?: number;
  readonly now?: () => number;
}

/**
 * The placements this manager made, by swarm ID (Mesos tasks: by name), so a web view can say
 * why a container runs where it does and where it ran before a reschedule. Bounded: a record is
 * a few hundred bytes, and only real placements are recorded, never explanations.
 */
export class PlacementJournal {
  private readonly records = new Map<string, PlacementRecord[]>();
  private readonly capacity: number;
  private readonly perContainer: number;
  private readonly candidates: number;
  private readonly now: () => number;

  constructor(options: PlacementJournalOptions = {}) {
    this.capacity = options.capacity ?? 10_000;
    this.perContainer = options.perContainer ?? 4;
    this.candidates = options.candidates ?? 3;
    this.now = options.now ?? Date.now;
  }

  readonly record = (request: PlacementRequest, outcome: PlacementOutcome): void => {
    const key = request.config.Labels?.[SwarmLabels.id] ?? request.name;
    const chosen = outcome.ranked[0];
    if (key === undefined || key === '' || !chosen) return;
    const history = this.records.get(key) ?? [];
    // Re-inserted so the Map's order is least recently placed first.
    this.records.delete(key);
    history.push({
      at: this.now(),
      node: chosen.node.name,
      strategy: outcome.strategy,
      ranked: outcome.ranked.slice(0, this.candidates).map((ranked) => ({ node: ranked.node.name, score: ranked.score })),
      feasible: outcome.feasible,
      considered: outcome.considered,
    });
    if (history.length > this.perContainer) history.shift();
    this.records.set(key, history);
    if (this.records.size > this.capacity) this.records.delete(this.records.keys().next().value!);
  };

  history(container: Container): readonly PlacementRecord[] {
    return this.records.get(container.labels[SwarmLabels.id] ?? container.name) ?? this.records.get(container.name) ?? [];
  }
}
