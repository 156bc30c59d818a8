import type { ClusterEvent } from '@swarm/plugin-sdk';
import type { RequestContext } from '../context.js';
import { eventTimeNano } from '../event-history.js';
import { checkFilterKeys, matchesAny, matchesLabels, parseFilters, type DockerFilters } from '../docker-filters.js';
import { CoreErrors } from '../../errors.js';
import { seesEvent } from '../scoped-views.js';

const EVENT_FILTERS = [
  'type',
  'event',
  'container',
  'image',
  'label',
  'node',
  'network',
  'volume',
  'daemon',
  'scope',
  'plugin',
  'config',
  'secret',
  'service',
];

/** `since`/`until` as the docker CLI sends them (`seconds[.nanos]`) or an RFC 3339 date, in nanoseconds. */
export function parseEventTime(raw: string | null, name: string): bigint | undefined {
  if (raw === null || raw === '') return undefined;
  const numeric = /^(\d+)(?:\.(\d{1,9}))?$/.exec(raw);
  if (numeric) return BigInt(numeric[1]!) * 1_000_000_000n + BigInt((numeric[2] ?? '').padEnd(9, '0'));
  const millis = Date.parse(raw);
  if (Number.isNaN(millis)) throw CoreErrors.invalidParameter({ name: `value for ${name}`, reason: raw });
  return BigInt(millis) * 1_000_000n;
}

function attributes(event: ClusterEvent): Record<string, string> {
  const actor = event.Actor as { Attributes?: Record<string, string> } | undefined;
  return actor?.Attributes ?? {};
}

function actorId(event: ClusterEvent): string | undefined {
  const actor = event.Actor as { ID?: string } | undefined;
  return actor?.ID ?? event.id;
}

function matchesTypedFilter(filters: DockerFilters, key: string, event: ClusterEvent, type: string): boolean {
  if (!filters.has(key)) return true;
  if ((event.Type ?? 'container') !== type) return false;
  const candidates = [actorId(event), attributes(event).name].filter((value): value is string => value !== undefined);
  const values = filters.get(key) ?? [];
  return values.some((value) => candidates.some((candidate) => candidate === value || (value.length >= 3 && candidate.startsWith(value))));
}

export function eventMatches(filters: DockerFilters, event: ClusterEvent): boolean {
  if (filters.size === 0) return true;
  const attrs = attributes(event);
  const type = event.Type ?? 'container';
  if (!matchesAny(filters, 'type', [type])) return false;
  if (
    !matchesAny(
      filters,
      'event',
      [event.Action ?? event.status ?? ''].map((action) => action.split(':')[0] ?? action),
    )
  )
    return false;
  if (
    !matchesAny(
      filters,
      'node',
      [event.node?.Name, event.node?.Id, event.node?.Addr].filter((v): v is string => v !== undefined),
    )
  )
    return false;
  if (!matchesLabels(filters, attrs)) return false;
  if (filters.has('image')) {
    const image = [event.from, attrs.image, type === 'image' ? actorId(event) : undefined].filter((v): v is string => v !== undefined);
    const values = filters.get('image') ?? [];
    if (!values.some((value) => image.some((candidate) => candidate === value || candidate.split(':')[0] === value))) return false;
  }
  return (
    matchesTypedFilter(filters, 'container', event, 'container') &&
    matchesTypedFilter(filters, 'network', event, 'network') &&
    matchesTypedFilter(filters, 'volume', event, 'volume')
  );
}

/** Swarm classic also shows the node in the actor's attributes, which `docker events` prints. */
export function presentEvent(event: ClusterEvent): ClusterEvent {
  if (!event.node) return event;
  const actor = (event.Actor as { ID?: string; Attributes?: Record<string, string> } | undefined) ?? {};
  const attributes = {
    ...actor.Attributes,
    'node.name': event.node.Name,
    'node.id': event.node.Id,
    'node.addr': event.node.Addr,
    'node.ip': event.node.Ip,
  };
  return { ...event, Actor: { ...actor, Attributes: attributes } };
}

/**
 * Each event's line as `docker events` receives it, made once: a `--since` replay sends thousands
 * of kept events to every such client, and live streams send each event to every listener.
 * Keyed by the event, so a line lives as long as the history keeps its event.
 */
const lines = new WeakMap<ClusterEvent, string>();
function lineOf(event: ClusterEvent): string {
  let line = lines.get(event);
  if (line === undefined) {
    line = `${JSON.stringify(presentEvent(event))}\n`;
    lines.set(event, line);
  }
  return line;
}

/** Replayed lines go out in writes of about this size: one write per event made most of a replay's cost. */
const REPLAY_WRITE_BYTES = 64 * 1024;

/** GET /events: history since `since`, then live events until `until` (when given). */
export async function getEvents(ctx: RequestContext): Promise<void> {
  const since = parseEventTime(ctx.query.get('since'), 'since');
  const until = parseEventTime(ctx.query.get('until'), 'until');
  const filters = parseFilters(ctx.query.get('filters'));
  checkFilterKeys(filters, EVENT_FILTERS);
  const { res } = ctx;
  const nowNano = BigInt(Date.now()) * 1_000_000n;
  const access = ctx.access;
  const sees = access?.scoped ? (event: ClusterEvent) => seesEvent(ctx.api, access, event) : () => true;
  const wanted = (event: ClusterEvent) => eventMatches(filters, event) && sees(event);

  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.flushHeaders();
  if (since !== undefined) {
    let pending = '';
    ctx.api.events.replay(since, until, (event) => {
      if (!wanted(event)) return;
      pending += lineOf(event);
      if (pending.length < REPLAY_WRITE_BYTES) return;
      res.write(pending);
      pending = '';
    });
    if (pending !== '') res.write(pending);
  }
  if (until !== undefined && until <= nowNano) {
    res.end();
    return;
  }
  const write = (event: ClusterEvent) => {
    const time = since === undefined && until === undefined ? 0n : eventTimeNano(event);
    if ((since !== undefined && time < since) || (until !== undefined && time > until)) return;
    if (wanted(event)) res.write(lineOf(event));
  };
  await new Promise<void>((resolve) => {
    const stop = ctx.api.events.listen(write);
    let timer: NodeJS.Timeout | undefined;
    const draining = ctx.api.draining;
    const done = () => {
      stop();
      if (timer) clearTimeout(timer);
      draining.removeEventListener('abort', done);
      if (!res.writableEnded) res.end();
      resolve();
    };
    if (until !== undefined) timer = setTimeout(done, Number((until - nowNano) / 1_000_000n) + 1);
    res.on('close', done);
    // a stopping manager ends the stream as `until` would: the client sees a complete answer
    if (draining.aborted) done();
    else draining.addEventListener('abort', done, { once: true });
  });
}
