import { describe, expect, it } from 'vitest';
import { shapeDifferences } from '../bench/hollow/index.js';
import { humanDuration, rfc3339Nano } from '@swarm/core/hollow';

describe('shapeDifferences', () => {
  it('accepts answers with the same keys and value types, whatever the values', () => {
    expect(shapeDifferences({ a: 1, b: ['x'], c: { d: null } }, { a: 2, b: ['y', 'z'], c: { d: null } })).toEqual([]);
  });

  it('names missing, unexpected and mistyped fields with their path', () => {
    expect(shapeDifferences({ a: 1, b: [{ c: 'x' }], e: 1 }, { a: '1', b: [{ c: 1 }], f: 1 })).toEqual([
      '$.a: expected number, got string',
      '$.b[0].c: expected string, got number',
      '$.e: missing',
      '$.f: unexpected',
    ]);
  });

  it('treats maps keyed by object IDs as one entry, and null as its own type', () => {
    const id = (n: number) => String(n).repeat(64);
    expect(shapeDifferences({ [id(1)]: { Name: 'a' } }, { [id(2)]: { Name: 'b' } })).toEqual([]);
    expect(shapeDifferences({ Env: null }, { Env: [] })).toEqual(['$.Env: expected null, got array']);
  });
});

describe('hollow clock', () => {
  it('prints durations like Go units.HumanDuration', () => {
    expect(humanDuration(300)).toBe('Less than a second');
    expect(humanDuration(1000)).toBe('1 second');
    expect(humanDuration(45_000)).toBe('45 seconds');
    expect(humanDuration(90_000)).toBe('About a minute');
    expect(humanDuration(10 * 60_000)).toBe('10 minutes');
    expect(humanDuration(3_600_000)).toBe('About an hour');
    expect(humanDuration(5 * 3_600_000)).toBe('5 hours');
    expect(humanDuration(3 * 86_400_000)).toBe('3 days');
  });

  it('prints times as Go RFC 3339 with nanoseconds, and the zero time for never', () => {
    expect(rfc3339Nano(Date.UTC(2026, 11, 2, 10, 36, 28, 134))).toBe('2026-12-02T10:36:28.134000000Z');
    expect(rfc3339Nano(0)).toBe('0001-01-01T00:00:00Z');
  });
});
