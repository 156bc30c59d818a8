import { describe, expect, it } from 'vitest';
import { alignedDelayMs, livenessDelayMs, livenessIntervalMs, refreshDelayMs } from '../src/monitor-pacing.js';

// Swarm classic's defaults: --engine-refresh-min-interval 30s, --engine-refresh-max-interval 60s
const CLASSIC = { refreshMinMs: 30_000, refreshMaxMs: 60_000, livenessIntervalMs: 3_000 };

describe('monitor pacing', () => {
  it('refreshes between the flags’ intervals while the cluster stays under 20 refreshes a second', () => {
    for (const engines of [1, 100, 500, 900]) {
      expect(refreshDelayMs(CLASSIC, engines, 0)).toBe(30_000);
      expect(refreshDelayMs(CLASSIC, engines, 0.5)).toBe(45_000);
      expect(refreshDelayMs(CLASSIC, engines, 0.999)).toBeCloseTo(59_970);
    }
  });

  it('stretches the intervals of a larger cluster so that it refreshes 20 engines a second on average', () => {
    for (const engines of [1000, 5000, 10_000]) {
      const mean = refreshDelayMs(CLASSIC, engines, 0.5);
      expect(engines / (mean / 1000)).toBeCloseTo(20);
      // the spread keeps the flags' proportions (min : max = 1 : 2)
      expect(refreshDelayMs(CLASSIC, engines, 0) * 2).toBeCloseTo(refreshDelayMs(CLASSIC, engines, 1));
    }
  });

  it('checks liveness at the flag’s interval, or at most 200 engines a second, within ±20 %', () => {
    expect(livenessIntervalMs(CLASSIC, 100)).toBe(3_000);
    expect(livenessIntervalMs(CLASSIC, 5000)).toBe(25_000);
    expect(livenessDelayMs(CLASSIC, 100, 0)).toBeCloseTo(2_400);
    expect(livenessDelayMs(CLASSIC, 100, 1)).toBeCloseTo(3_600);
  });

  it('lengthens a check’s delay to end on the next tick, so that checks due together go out together', () => {
    expect(alignedDelayMs(2_400, 1_000_000, 250)).toBe(2_500);
    expect(alignedDelayMs(2_400, 1_000_100, 250)).toBe(2_400);
    expect(alignedDelayMs(1, 1_000_249, 250)).toBe(1);
    // engines scheduled at different moments, due within one tick, share its end
    const ends = [
      [1_000_010, 3_000],
      [1_000_020, 2_990],
      [1_000_200, 2_811],
    ].map(([now, delay]) => now! + alignedDelayMs(delay!, now!, 250));
    expect(new Set(ends)).toEqual(new Set([1_003_250]));
  });
});
