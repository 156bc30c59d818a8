import { describe, expect, it } from 'vitest';
import { apiReserve, connectionPlan, openFilesLimit, openFilesNeeded } from '../src/connection-budget.js';

/** Open files the engines may hold at most under a plan: event streams, idle connections, calls in flight. */
function worstCase(engines: number, limit: number): number {
  const plan = connectionPlan(engines, limit);
  return engines * (1 + plan.livenessIdle + plan.callIdle) + (plan.callsInFlight ?? 0);
}

describe('connectionPlan', () => {
  it('keeps 8 idle connections per engine while there is room, as before the plan', () => {
    expect(connectionPlan(100, 20_000)).toMatchObject({ callIdle: 8, livenessIdle: 1, short: false });
    expect(connectionPlan(1000, 20_000)).toMatchObject({ callIdle: 8, livenessIdle: 1, short: false });
  });

  it('keeps fewer idle connections as engines grow, and none at all when only event streams fit', () => {
    expect(connectionPlan(3000, 20_000)).toMatchObject({ callIdle: 2, livenessIdle: 1 });
    expect(connectionPlan(5000, 20_000)).toMatchObject({ callIdle: 1, livenessIdle: 0 });
    expect(connectionPlan(10_000, 20_000)).toMatchObject({ callIdle: 0, livenessIdle: 0, short: false });
  });

  it('never plans more open files than the limit leaves after the API reserve', () => {
    for (const limit of [1024, 4096, 20_000, 65_536, 1_048_576])
      for (const engines of [1, 10, 100, 300, 1000, 3000, 5000, 10_000]) {
        if (connectionPlan(engines, limit).short) continue;
        expect(worstCase(engines, limit), `${engines} engines, limit ${limit}`).toBeLessThanOrEqual(limit - apiReserve(limit));
      }
  });

  it('says when the limit cannot hold an event stream per engine, and which limit would', () => {
    expect(connectionPlan(400, 512).short).toBe(true);
    expect(openFilesNeeded(400)).toBe(1024);
    expect(connectionPlan(20_000, 20_000).short).toBe(true);
    expect(connectionPlan(20_000, openFilesNeeded(20_000)).short).toBe(false);
  });

  it('leaves calls unbounded when the limit is unknown', () => {
    expect(connectionPlan(5000, undefined)).toEqual({ callIdle: 2, livenessIdle: 1, callsInFlight: undefined, short: false });
    expect(openFilesLimit()).toBeGreaterThan(0);
  });
});
