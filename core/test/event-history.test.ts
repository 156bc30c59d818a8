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

describe('EventHistory', () => {
  it('replays the last `capacity` events, oldest first, however many came, and tells listeners each one', () => {
    const { cluster, emit } = source();
    const history = new EventHistory(cluster, 4);
    const heard: string[] = [];
    history.listen((event) => heard.push(event.id ?? ''));
    emit(1);
    emit(2);
    expect(history.past().map((event) => event.id)).toEqual(['c1', 'c2']);
    emit(3);
    for (let id = 4; id <= 23; id++) {
      emit(id);
      expect(history.past().map((event) => event.id)).toEqual([id - 3, id - 2, id - 1, id].map((n) => `c${n}`));
    }
    expect(heard).toHaveLength(23);
    history.close();
    emit(24);
    expect(heard).toHaveLength(23);
  });
});
