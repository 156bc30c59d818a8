import type { MessagePort } from 'node:worker_threads';
import type { AccessSyncAnswer, AccessSyncCall, AccessSyncQuestion } from './access-protocol.js';
import { waitForAnswer } from './wait-for-answer.js';

/** The host's end of an access worker's synchronous channel. */
export interface SyncChannel {
  readonly syncPort: MessagePort;
  /** Slot 0: the number of the last synchronous answer the worker posted. */
  readonly answered: Int32Array;
  /** The number of the last question asked over the channel. */
  syncSeq: number;
}

/**
 * `sees` or `roles`, which are synchronous in the plugin contract: the question goes over the
 * channel's own port (the async calls' port answers only when the host's loop turns) and the host
 * blocks on the answer up to `limitMs`. `late` when none came in time; undefined when the worker
 * ended without one.
 */
export function askSync(channel: SyncChannel, question: AccessSyncQuestion, limitMs: number): AccessSyncAnswer | 'late' | undefined {
  const seq = ++channel.syncSeq;
  channel.syncPort.postMessage({ ...question, seq } as AccessSyncCall);
  return waitForAnswer<AccessSyncAnswer>(channel.syncPort, channel.answered, seq, limitMs);
}
