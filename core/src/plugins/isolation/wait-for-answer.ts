import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/**
 * Blocks the host's thread until a worker posted answer `seq` (it counts its answers in slot 0 of
 * `answered`; Atomics.wait sleeps on that slot) or `limitMs` passed, then takes that answer off
 * `port` without the event loop turning: a synchronous hook cannot be awaited. `late` when none
 * came in time; undefined when the port holds none (the worker's thread ended).
 */
export function waitForAnswer<T extends { readonly seq: number }>(
  port: MessagePort,
  answered: Int32Array,
  seq: number,
  limitMs: number,
): T | 'late' | undefined {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const now = Atomics.load(answered, 0);
    if (now === seq) break;
    const left = deadline - performance.now();
    if (left <= 0 || Atomics.wait(answered, 0, now, left) === 'timed-out') {
      if (Atomics.load(answered, 0) === seq) break;
      return 'late';
    }
  }
  let message = receiveMessageOnPort(port)?.message as T | undefined;
  while (message && message.seq !== seq) message = receiveMessageOnPort(port)?.message as T | undefined;
  return message;
}
