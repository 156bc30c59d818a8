import { Worker } from 'node:worker_threads';
import { BEAT_SLOT, type CallMarks } from './call-marks.js';

/**
 * The exit status of a manager whose event loop the watchdog found blocked: distinct from a crash
 * (1), a second signal (130) and the kernel's SIGKILL (137), so a supervisor's log tells them apart.
 */
export const WATCHDOG_EXIT_STATUS = 86;

export interface WatchdogOptions {
  /** How long the event loop may be blocked before the process is ended. */
  readonly limitMs: number;
  /** How the line naming the plugin is written: as the manager's logger writes (JSON or logfmt text). */
  readonly format: 'json' | 'text';
  /** The marks the host sets around plugin calls (shared memory). */
  readonly marks: CallMarks;
}

export interface Watchdog {
  readonly marks: CallMarks;
  stop(): Promise<void>;
}

/** What the watchdog thread is given. */
export interface WatchdogData {
  readonly slots: Int32Array;
  readonly limitMs: number;
  readonly checkMs: number;
  readonly exitStatus: number;
  readonly format: 'json' | 'text';
}

/**
 * Starts a thread that ends the process when the event loop stops beating for `limitMs`: a plugin's
 * synchronous code that never returns (`for (;;) {}`) cannot be interrupted from the loop itself,
 * and a process that answers nothing should be restarted (systemd's Restart=on-failure,
 * Kubernetes, a replica taking over) rather than left holding its port.
 */
export function startWatchdog(options: WatchdogOptions): Watchdog {
  const { marks, limitMs } = options;
  const checkMs = Math.max(10, Math.min(1000, Math.floor(limitMs / 4)));
  const data: WatchdogData = { slots: marks.slots, limitMs, checkMs, exitStatus: WATCHDOG_EXIT_STATUS, format: options.format };
  const worker = new Worker(new URL('./watchdog-thread.js', import.meta.url), { workerData: data });
  worker.unref();
  marks.onSite((id, text) => worker.postMessage({ id, text }));
  const beat = setInterval(() => {
    marks.slots[BEAT_SLOT] = (marks.slots[BEAT_SLOT]! + 1) | 0;
  }, checkMs);
  beat.unref();
  return {
    marks,
    async stop() {
      clearInterval(beat);
      await worker.terminate();
    },
  };
}
