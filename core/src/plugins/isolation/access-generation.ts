import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '@swarm/plugin-sdk';
import { formatLimit } from '../call-limits.js';
import { rebuild } from './wire-error.js';
import type { AccessHook, AccessIsolationData, AccessMessage } from './access-protocol.js';
import type { SyncChannel } from './access-sync-call.js';

/** How long a worker may take to load its plugin and run the entry's factory (usually a tenth of a second). */
export const ACCESS_START_LIMIT_MS = 10_000;

/** How often a worker's loop marks that it turns. */
export const BEAT_MS = 25;

/** One worker thread, from its start to its end. */
export interface Generation extends SyncChannel {
  readonly worker: Worker;
  readonly port: MessagePort;
  /** Slot 0: when the worker's loop last turned (Date.now()). */
  readonly beat: Float64Array;
  /** Slot 0: the last call whose hook the worker began (calls after it wait in its queue). */
  readonly begun: Int32Array;
  readonly ready: Promise<readonly AccessHook[]>;
  isReady: boolean;
  ended: boolean;
  /** New calls go to a fresh worker: this one ends once its calls are answered (and its views are done). */
  retired: boolean;
}

/** The plugin a worker loads, and the entry's settings for it. */
export interface WorkerPlugin {
  /** The plugin's entry file, imported by the worker. */
  readonly entry: string;
  /** The provider's DI token (`swarm:Authorizer`). */
  readonly token: string;
  /** The config entry's name (`rules`). */
  readonly name: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly configDir: string;
  /** The entry's logger: the plugin's lines from its worker are written here. */
  readonly logger: Logger;
}

/** What the owner of a generation does as its worker reports: the calls, and when the worker ends, are the owner's. */
export interface GenerationEvents {
  /** The refusal for a worker that did not start (or ended), with why. */
  readonly startError: (reason: string) => Error;
  /** The worker built the plugin: it waits on nothing now but the calls made of it. */
  readonly ready: (generation: Generation) => void;
  readonly answer: (generation: Generation, message: Extract<AccessMessage, { op: 'answer' }>) => void;
  /** The worker is to end: its start failed or ran out of time, or its thread exited. */
  readonly end: (generation: Generation) => void;
  /** The plugin threw outside a hook (a timer's callback): the thread is gone. */
  readonly crashed: (generation: Generation, error: Error) => void;
}

/**
 * Starts a worker thread that loads the plugin, with the shared memory it marks its loop's turns,
 * its begun calls and its synchronous answers in. `ready` settles with the hooks its plugin has, or
 * the factory's error, or the start's refusal after ACCESS_START_LIMIT_MS.
 */
export function startGeneration(plugin: WorkerPlugin, events: GenerationEvents): Generation {
  const { port1, port2 } = new MessageChannel();
  const sync = new MessageChannel();
  const answered = new Int32Array(new SharedArrayBuffer(4));
  const beat = new Float64Array(new SharedArrayBuffer(8));
  const begun = new Int32Array(new SharedArrayBuffer(4));
  beat[0] = Date.now();
  const { entry, token, name, options, configDir, logger } = plugin;
  const data: AccessIsolationData & { port: MessagePort; syncPort: MessagePort } = {
    entry,
    token,
    name,
    options,
    configDir,
    logLevel: logger.level,
    answered,
    beat,
    beatMs: BEAT_MS,
    begun,
    port: port2,
    syncPort: sync.port2,
  };
  let worker: Worker;
  try {
    worker = new Worker(new URL('./access-thread.js', import.meta.url), { workerData: data, transferList: [port2, sync.port2] });
  } catch (error) {
    port1.close();
    sync.port1.close();
    // options with functions or class instances in them cannot cross to a thread
    throw events.startError(`its options cannot be sent to a worker thread: ${(error as Error).message}`);
  }
  worker.unref();
  let settle: { resolve: (hooks: readonly AccessHook[]) => void; reject: (error: Error) => void } | undefined;
  const ready = new Promise<readonly AccessHook[]>((resolve, reject) => (settle = { resolve, reject }));
  ready.catch(() => undefined);
  const generation: Generation = {
    worker,
    port: port1,
    syncPort: sync.port1,
    answered,
    beat,
    begun,
    ready,
    syncSeq: 0,
    isReady: false,
    ended: false,
    retired: false,
  };
  const timer = setTimeout(() => {
    settle!.reject(events.startError(`no answer within ${formatLimit(ACCESS_START_LIMIT_MS)}`));
    events.end(generation);
  }, ACCESS_START_LIMIT_MS);
  timer.unref();
  let settled = false;
  const onMessage = (message: AccessMessage) => {
    if (message.op === 'ready') {
      clearTimeout(timer);
      settled = true;
      generation.isReady = true;
      settle!.resolve(message.hooks);
      events.ready(generation);
    } else if (message.op === 'failed') {
      clearTimeout(timer);
      settled = true;
      settle!.reject(rebuild(message.error));
      events.end(generation);
    } else if (message.op === 'answer') events.answer(generation, message);
    else writeLog(logger, message);
  };
  port1.on('message', onMessage);
  worker.on('error', (error) => {
    clearTimeout(timer);
    settled = true;
    settle!.reject(events.startError(error.message));
    events.crashed(generation, error);
  });
  worker.on('exit', () => {
    // the thread's exit and its last messages (a factory's refusal, a last answer) come by different
    // ways, in no set order: what it sent is read before its port closes
    for (let queued = receiveMessageOnPort(port1); queued; queued = receiveMessageOnPort(port1)) onMessage(queued.message as AccessMessage);
    if (!settled) {
      clearTimeout(timer);
      settle!.reject(events.startError('its worker thread ended before it loaded the plugin'));
    }
    events.end(generation);
  });
  return generation;
}

/** A line the plugin logged in its worker, written to the entry's logger with the plugin's bindings. */
function writeLog(logger: Logger, message: Extract<AccessMessage, { op: 'log' }>): void {
  const target = Object.keys(message.bindings).length > 0 ? logger.child({ ...message.bindings }) : logger;
  if (message.fields === undefined) target[message.level](message.message ?? '');
  else target[message.level]({ ...message.fields }, message.message);
}
