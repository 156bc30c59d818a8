import { describe, expect, it } from 'vitest';
import { memoizeByList } from '@swarm/plugin-sdk/helpers';

describe('memoizeByList', () => {
  const counted = () => {
    const calls: number[][] = [];
    const sum = memoizeByList((list: readonly { n: number }[]) => {
      calls.push(list.map((item) => item.n));
      return list.reduce((total, item) => total + item.n, 0);
    });
    return { calls, sum };
  };

  it('derives once per unchanged list', () => {
    const { calls, sum } = counted();
    const list = [{ n: 1 }, { n: 2 }];
    expect(sum(list)).toBe(3);
    expect(sum(list)).toBe(3);
    expect(calls).toHaveLength(1);
  });

  it('derives again when the same array grows, shrinks or changes at its ends in place', () => {
    const { calls, sum } = counted();
    const list = [{ n: 1 }, { n: 2 }];
    sum(list);
    list.push({ n: 4 });
    expect(sum(list)).toBe(7);
    list[0] = { n: 10 };
    expect(sum(list)).toBe(16);
    list.pop();
    expect(sum(list)).toBe(12);
    expect(calls).toHaveLength(4);
  });

  it('keeps separate entries for separate lists', () => {
    const { sum } = counted();
    expect(sum([{ n: 1 }])).toBe(1);
    expect(sum([{ n: 5 }])).toBe(5);
  });
});
