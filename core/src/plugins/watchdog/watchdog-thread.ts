import { writeSync } from 'node:fs';
import { Session } from 'node:inspector';
import { parentPort, workerData } from 'node:worker_threads';
import { textLine } from '../../logging/text-format.js';
import { BEAT_SLOT, CALL_SLOT } from './call-marks.js';
import type { WatchdogData } from './watchdog.js';

// Runs in its own thread: it keeps time while the manager's event loop is stuck in a plugin.
const { slots, limitMs, checkMs, exitStatus, format } = workerData as WatchdogData;
const sites = new Map<number, string>();
parentPort?.on('message', (site: { id: number; text: string }) => sites.set(site.id, site.text));

let lastBeat = Atomics.load(slots, BEAT_SLOT);
let beatAt = Date.now();

/** Written with writeSync: this thread's console goes through the main thread, which is the one stuck. */
function log(fields: Record<string, unknown>, msg: string): void {
  const record = { level: 60, time: Date.now(), pid: process.pid, ...fields, msg };
  writeSync(2, format === 'text' ? textLine(record, false) : `${JSON.stringify(record)}\n`);
}

/**
 * Ends the whole process with `exitStatus`. A worker's own `process.exit` ends only the worker, so
 * the exit is evaluated on the main thread through the inspector, whose messages V8 runs as an
 * interrupt even inside a loop that never yields. Without an inspector, SIGKILL.
 */
function endProcess(): void {
  try {
    const session = new Session();
    session.connectToMainThread();
    session.post('Runtime.evaluate', { expression: `process.reallyExit(${exitStatus})` });
  } catch {
    process.kill(process.pid, 'SIGKILL');
  }
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 2000);
}

setInterval(() => {
  const beat = Atomics.load(slots, BEAT_SLOT);
  const now = Date.now();
  if (beat !== lastBeat) {
    lastBeat = beat;
    beatAt = now;
    return;
  }
  const blockedMs = now - beatAt;
  if (blockedMs < limitMs) return;
  const call = sites.get(Atomics.load(slots, CALL_SLOT));
  const inPlugin = call ? `in ${call}` : 'outside any plugin call';
  log(
    { watchdog: true, blockedMs, limitMs, plugin: call ?? null, exitStatus },
    `the event loop has been blocked for ${blockedMs} ms (limit ${limitMs} ms) ${inPlugin}; ending the process with status ${exitStatus} so it is restarted`,
  );
  endProcess();
}, checkMs);
