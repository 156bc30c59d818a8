import { eventWindow, type EngineEvent } from './events.js';
import { parseFilters } from './filters.js';
import type { Reply, RouteContext } from './route-types.js';

/** `GET /events`: replays `since`, then streams live events until `until` or the client leaves. */
export function streamEvents({ state, query, req, res }: RouteContext): Reply | undefined {
  const filters = parseFilters(query.get('filters'));
  const { sinceMs, untilMs } = eventWindow(query.get('since'), query.get('until'));
  const nowMs = Date.now();
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.flushHeaders();
  if (sinceMs !== undefined) {
    for (const event of state.events.replay(sinceMs, untilMs ?? nowMs, filters)) res.write(event.line);
  }
  if (untilMs !== undefined && untilMs <= nowMs) {
    res.end();
    return undefined;
  }
  const unsubscribe = state.events.subscribe(filters, (event: EngineEvent) => res.write(event.line));
  const timer = untilMs === undefined ? undefined : setTimeout(() => res.end(), untilMs - nowMs);
  const close = (): void => {
    unsubscribe();
    if (timer !== undefined) clearTimeout(timer);
  };
  req.socket.on('close', close);
  res.on('finish', close);
  return undefined;
}

/** `POST /containers/{id}/wait?condition=not-running|next-exit|removed`: answers when the container gets there. */
export function waitForContainer({ state, params, query, req, res }: RouteContext): Reply | undefined {
  const container = state.container(decodeURIComponent(params[0] ?? ''));
  const condition = query.get('condition') || 'not-running';
  const answer = (exitCode: number): void => {
    res.end(`${JSON.stringify({ Error: null, StatusCode: exitCode })}\n`);
  };
  if (condition === 'not-running' && container.state !== 'running')
    return { status: 200, body: { Error: null, StatusCode: container.exitCode } };
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.flushHeaders();
  const awaited = condition === 'removed' ? 'destroy' : 'die';
  const unsubscribe = state.events.subscribe(
    new Map([
      ['container', [container.id]],
      ['event', [awaited]],
    ]),
    () => {
      unsubscribe();
      answer(container.exitCode);
    },
  );
  req.socket.on('close', unsubscribe);
  return undefined;
}
