import { describe, expect, it } from 'vitest';
import { DiskUsageCalls } from '../dist/api/disk-usage-calls.js';
import type { Answer } from '../dist/api/answers.js';

/** A call that ends when told to, recording when it started. */
function pendingCall(log: string[], name: string): { call: () => Promise<Answer[]>; end: () => void } {
  let end = (): void => undefined;
  const done = new Promise<void>((resolve) => (end = resolve));
  return {
    call: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return [];
    },
    end: () => end(),
  };
}

describe('GET /system/df calls of one API front', () => {
  it('share the running call between identical requests and run different ones one after another', async () => {
    const calls = new DiskUsageCalls();
    const log: string[] = [];
    const plain = pendingCall(log, 'plain');
    const verbose = pendingCall(log, 'verbose');
    const first = calls.share('/system/df', plain.call);
    const same = calls.share('/system/df', pendingCall(log, 'never').call);
    const other = calls.share('/system/df?verbose=1', verbose.call);
    expect(same).toBe(first);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start plain']);
    plain.end();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start plain', 'end plain', 'start verbose']);
    verbose.end();
    await other;
    expect(calls.share('/system/df', async () => [{ node: 'again' }])).not.toBe(first);
  });

  it('start the next call after one that failed', async () => {
    const calls = new DiskUsageCalls();
    await expect(calls.share('/system/df', () => Promise.reject(new Error('engine gone')))).rejects.toThrow('engine gone');
    await expect(calls.share('/system/df', async () => [])).resolves.toEqual([]);
  });

  it('are kept per API front: two deployments never wait on each other', async () => {
    const log: string[] = [];
    const blocked = pendingCall(log, 'a');
    void new DiskUsageCalls().share('/system/df', blocked.call);
    await expect(new DiskUsageCalls().share('/system/df', async () => [])).resolves.toEqual([]);
    blocked.end();
  });
});
