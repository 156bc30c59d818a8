import { describe, expect, it } from 'vitest';
import type { ClusterEvent } from '@swarm/plugin-sdk';
import { EventHistory } from '../dist/api/event-history.js';

function source() {
  let listener: ((event: ClusterEvent) => void) | undefined;
  const cluster = {
    subscribe: (next: (event: ClusterEvent) => void) => {
      listener = next;
      return () => (listener = undefined);
    },
  };
  const emit = (id: number) => listener?.({ Type: 'container', Action: 'create', status: 'create', id: `c${id}` });
  return { cluster, emit };
}

function replayed(history: EventHistory): string[] {
  const ids: string[] = [];
  history.replay(undefined, undefined, (event) => ids.push(event.id ?? ''));
  return ids;
}

describe('EventHistory', () => {
  it('replays the last `capacity` events, oldest first, however many came, and tells listeners each one', () => {
    const { cluster, emit } = source();
    const history = new EventHistory(cluster, 4);
    const heard: string[] = [];
    history.listen((event) => heard.push(event.id ?? ''));
    emit(1);
    emit(2);
    expect(replayed(history)).toEqual(['c1', 'c2']);
    emit(3);
    for (let id = 4; id <= 23; id++) {
      emit(id);
      expect(replayed(history)).toEqual([id - 3, id - 2, id - 1, id].map((n) => `c${n}`));
    }
    expect(heard).toHaveLength(23);
    history.close();
    emit(24);
    expect(heard).toHaveLength(23);
  });

  it('replays exactly the kept events within since and until, in arrival order, though engines deliver them out of time order', () => {
    let listener: ((event: ClusterEvent) => void) | undefined;
    const cluster = {
      subscribe: (next: (event: ClusterEvent) => void) => {
        listener = next;
        return () => (listener = undefined);
      },
    };
    const history = new EventHistory(cluster, 50);
    // seconds, with late arrivals from a slower engine mixed in (and one event without a time)
    const seconds = Array.from({ length: 140 }, (_, index) => (index % 7 === 3 ? index - 20 : index));
    const sent: ClusterEvent[] = seconds.map((time, index) =>
      index === 100
        ? { Type: 'container', Action: 'start', id: `e${index}` }
        : { Type: 'container', Action: 'start', id: `e${index}`, time },
    );
    for (const event of sent) listener?.(event);
    const kept = sent.slice(-50);
    const secondsOf = (event: ClusterEvent) => (typeof event.time === 'number' ? event.time : 0);
    for (const [since, until] of [
      [undefined, undefined],
      [0, undefined],
      [95, undefined],
      [95, 120],
      [undefined, 110],
      [119, 119],
      [200, undefined],
      [130, 100],
    ] as const) {
      const replayed: string[] = [];
      history.replay(
        since === undefined ? undefined : BigInt(since) * 1_000_000_000n,
        until === undefined ? undefined : BigInt(until) * 1_000_000_000n,
        (event) => replayed.push(event.id ?? ''),
      );
      const expected = kept
        .filter((event) => (since === undefined || secondsOf(event) >= since) && (until === undefined || secondsOf(event) <= until))
        .map((event) => event.id ?? '');
      expect(replayed, `since ${since} until ${until}`).toEqual(expected);
    }
    history.close();
  });
});
