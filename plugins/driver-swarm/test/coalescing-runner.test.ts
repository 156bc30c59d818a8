import { describe, expect, it } from 'vitest';
import { CoalescingRunner } from '../src/coalescing-runner.js';

describe('CoalescingRunner', () => {
  it('collapses calls made while a task runs into one rerun, per key', async () => {
    const runner = new CoalescingRunner();
    const runs: string[] = [];
    let release: () => void = () => undefined;
    const task = (key: string) => async () => {
      runs.push(key);
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
    };
    const first = runner.run('a', task('a'));
    const burst = [runner.run('a', task('a')), runner.run('a', task('a')), runner.run('b', task('b'))];
    release();
    await Promise.all([first, ...burst]);
    expect(runs).toEqual(['a', 'b', 'a']);
    await runner.run('a', task('a'));
    expect(runs).toEqual(['a', 'b', 'a', 'a']);
  });

  it('rejects the callers of a failing task and runs again afterwards', async () => {
    const runner = new CoalescingRunner();
    await expect(runner.run('k', () => Promise.reject(new Error('engine down')))).rejects.toThrow('engine down');
    let ran = false;
    await runner.run('k', async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('lets a join wait for the running task without a rerun, and run when nothing runs', async () => {
    const runner = new CoalescingRunner();
    let runs = 0;
    let release: () => void = () => undefined;
    const task = async () => {
      runs++;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    };
    const first = runner.run('c', task);
    const joined = runner.join('c', task);
    release();
    await Promise.all([first, joined]);
    expect(runs).toBe(1);
    await runner.join('c', task);
    expect(runs).toBe(2);
  });
});
