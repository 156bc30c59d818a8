import { now, parseTimestampMs } from './clock.js';
import { anyValue, labelsMatch, type FilterArgs } from './filters.js';

export interface EngineEvent {
  readonly type: 'container' | 'network' | 'image';
  readonly action: string;
  readonly actorId: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly ms: number;
  /** The serialized event, as the engine streams it (one JSON document per line). */
  readonly line: string;
}

export interface EventInput {
  type: EngineEvent['type'];
  action: string;
  actorId: string;
  attributes: Record<string, string>;
  /** The image, for the legacy `status`/`id`/`from` fields of container events. */
  from?: string;
}

type Listener = (event: EngineEvent) => void;

/** dockerd keeps the last 256 events for `since` replays. */
const REPLAY_BUFFER = 256;

function sortedAttributes(attributes: Record<string, string>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(attributes).sort()) sorted[key] = attributes[key] ?? '';
  return sorted;
}

function serialize(input: EventInput, seconds: number, nanos: string): string {
  const legacy =
    input.type === 'network' ? {} : { status: input.action, id: input.actorId, ...(input.from === undefined ? {} : { from: input.from }) };
  const body = JSON.stringify({
    ...legacy,
    Type: input.type,
    Action: input.action,
    Actor: { ID: input.actorId, Attributes: sortedAttributes(input.attributes) },
    scope: 'local',
    time: seconds,
  });
  // timeNano exceeds 2^53, so it is spliced in as digits rather than passed through a number.
  return `${body.slice(0, -1)},"timeNano":${nanos}}\n`;
}

export class EventHub {
  private readonly recent: EngineEvent[] = [];
  private readonly listeners = new Set<Listener>();

  get listenerCount(): number {
    return this.listeners.size;
  }

  emit(input: EventInput): void {
    const instant = now();
    const event: EngineEvent = {
      type: input.type,
      action: input.action,
      actorId: input.actorId,
      attributes: input.attributes,
      ms: instant.ms,
      line: serialize(input, Math.floor(instant.ms / 1000), instant.nanos),
    };
    this.recent.push(event);
    if (this.recent.length > REPLAY_BUFFER) this.recent.shift();
    for (const listener of this.listeners) listener(event);
  }

  /** Past events in [sinceMs, untilMs], oldest first. */
  replay(sinceMs: number, untilMs: number, filters: FilterArgs): EngineEvent[] {
    return this.recent.filter((event) => event.ms >= sinceMs && event.ms <= untilMs && eventMatches(event, filters));
  }

  subscribe(filters: FilterArgs, listener: Listener): () => void {
    const filtered: Listener = (event) => {
      if (eventMatches(event, filters)) listener(event);
    };
    this.listeners.add(filtered);
    return () => this.listeners.delete(filtered);
  }
}

export function eventMatches(event: EngineEvent, filters: FilterArgs): boolean {
  const attributes = event.attributes;
  return (
    anyValue(filters, 'type', (value) => value === event.type) &&
    anyValue(filters, 'event', (value) => value === event.action) &&
    anyValue(
      filters,
      'container',
      (value) => event.type === 'container' && (event.actorId.startsWith(value) || attributes['name'] === value),
    ) &&
    anyValue(filters, 'image', (value) => attributes['image'] === value || (event.type === 'image' && event.actorId === value)) &&
    anyValue(
      filters,
      'network',
      (value) => event.type === 'network' && (event.actorId.startsWith(value) || attributes['name'] === value),
    ) &&
    anyValue(filters, 'scope', (value) => value === 'local') &&
    labelsMatch(filters, attributes)
  );
}

export const eventWindow = (since: string | null, until: string | null): { sinceMs: number | undefined; untilMs: number | undefined } => ({
  sinceMs: parseTimestampMs(since),
  untilMs: parseTimestampMs(until),
});
