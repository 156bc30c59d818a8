import { describe, expect, it } from 'vitest';
import { apiReserve, connectionPlan, loadsAtOnce, openFilesLimit, openFilesNeeded, parallelReads } from '../src/connection-budget.js';
import { LoadGate } from '../src/load-gate.js';

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

describe('full loads', () => {
  it('read as many containers at once per engine as it keeps connections, with more engines loading when that is fewer', () => {
    expect([parallelReads(connectionPlan(1000, 20_000)), loadsAtOnce(connectionPlan(1000, 20_000))]).toEqual([8, 16]);
    expect([parallelReads(connectionPlan(3000, 20_000)), loadsAtOnce(connectionPlan(3000, 20_000))]).toEqual([2, 64]);
    expect([parallelReads(connectionPlan(10_000, 20_000)), loadsAtOnce(connectionPlan(10_000, 20_000))]).toEqual([1, 128]);
  });

  it('never run more loads at once than the gate allows, handing slots on as loads finish or the limit grows', async () => {
    const gate = new LoadGate(2);
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const load = () =>
      gate.run(async () => {
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
      });
    const loads = Array.from({ length: 6 }, load);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(running).toBe(2);
    releases.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(running).toBe(2);
    gate.resize(4);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(running).toBe(4);
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(loads);
    expect(most).toBe(4);
  });
});
