import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import type { Caller, Visibility } from '@swarm/plugin-sdk/access';
import type { PluginGuard } from '../plugin-guard.js';
import type { ListVisibility } from '../list-visibility.js';
import { formatLimit } from '../call-limits.js';
import { CoreErrors } from '../../errors.js';
import { rebuild } from './wire-error.js';
import type { AccessCall, AccessHook, AccessMessage, AccessSyncQuestion, WireVisibility } from './access-protocol.js';
import { BEAT_MS, startGeneration, type Generation, type WorkerPlugin } from './access-generation.js';
import { askSync } from './access-sync-call.js';
import { workerView } from './access-view.js';

/**
 * How long a synchronous hook (`Visibility.sees`, `roles`) may hold the host's event loop before
 * its worker is ended: the loop waits on it, so it is short, and well under the watchdog's limit.
 */
export const ISOLATED_SYNC_LIMIT_MS = 1000;

/** How long without a mark of its loop turning (every BEAT_MS) makes a worker held by a hook. */
const STALL_MS = 250;

/** How long a worker that new calls no longer go to is kept for the views it handed out (a view lives for one request). */
const RETIRED_GRACE_MS = 10_000;

export type AccessKind = 'authn' | 'authz' | 'admission';

export interface AccessIsolationOptions extends WorkerPlugin {
  readonly kind: AccessKind;
  /** How long an async hook (`authenticate`, `authorize`, `review`, `visibility`, `admit`) may take. */
  readonly limitMs: number;
  /** How long `sees` or `roles` may take. */
  readonly syncLimitMs: number;
  readonly guard: PluginGuard;
}

/** An answer, with the worker that gave it (a view number means something to that worker only). */
interface Answered {
  readonly generation: Generation;
  readonly answer: unknown;
}

interface Pending {
  readonly generation: Generation;
  readonly hook: AccessHook;
  readonly args: readonly unknown[];
  readonly resolve: (value: Answered) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const SEES_ALL: Visibility = { sees: () => true, everything: true };

/**
 * An access plugin (`authn`, `authz` or `admission`) whose factory and hooks run in a worker
 * thread of their own. Async hooks are messages held to the entry's limit; a hook that does not
 * answer in time has its worker terminated (every call waiting on that worker fails with the
 * timeout error), and the next call starts a fresh worker, which runs the factory again. `sees`
 * and `roles` are synchronous in the contract, so the host waits for them on shared memory
 * (Atomics.wait), up to a short limit.
 */
export class IsolatedAccessPlugin {
  private current: Generation | undefined;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  /** Views the host let go of: the worker drops its copy. */
  private readonly views = new FinalizationRegistry<{ generation: Generation; view: number }>(({ generation, view }) => {
    if (!generation.ended) generation.port.postMessage({ op: 'release', view } satisfies AccessCall);
  });
  /** Hooks that did not answer in time, whose worker was ended. */
  hung = 0;
  /** Workers started (the first, and one after each that was ended). */
  starts = 0;

  constructor(private readonly options: AccessIsolationOptions) {}

  private startError(reason: string): Error {
    const { kind, name, guard } = this.options;
    return CoreErrors.isolatedWorkerStart({ kind, name, plugin: guard.labelOf(kind, name), reason });
  }

  private start(): Generation {
    const { kind, name, guard } = this.options;
    const generation = startGeneration(this.options, {
      startError: (reason) => this.startError(reason),
      ready: (started) => this.hold(started),
      answer: (answering, message) => this.answered(answering, message),
      end: (ending) => this.end(ending),
      crashed: (crashed, error) => this.end(crashed, (call) => guard.failed(kind, name, error, { hook: `${call.hook}()` })),
    });
    this.starts++;
    this.current = generation;
    return generation;
  }

  /** A call's answer: the call waiting on it (if it did not time out) settles. */
  private answered(generation: Generation, message: Extract<AccessMessage, { op: 'answer' }>): void {
    const waiting = this.pending.get(message.seq);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.pending.delete(message.seq);
    if (message.ok) waiting.resolve({ generation, answer: message.result });
    else waiting.reject(rebuild(message.error));
    this.hold(generation);
  }

  /**
   * The worker and its port keep the process alive only while a start or a call waits on them: an
   * idle isolated plugin never holds a manager (or `swarm plugins`) that is done.
   */
  private hold(generation: Generation): void {
    if (generation.ended) return;
    const busy = !generation.isReady || this.waitingOn(generation);
    if (busy) generation.port.ref();
    else generation.port.unref();
    if (!busy && generation.retired) setTimeout(() => this.end(generation), RETIRED_GRACE_MS).unref();
  }

  private waitingOn(generation: Generation): boolean {
    for (const call of this.pending.values()) if (call.generation === generation) return true;
    return false;
  }

  private stalled(generation: Generation): boolean {
    return generation.isReady && !generation.ended && Date.now() - generation.beat[0]! > STALL_MS && this.waitingOn(generation);
  }

  /**
   * The worker new calls go to. One whose loop a hook holds (no beat for STALL_MS while calls
   * wait on it) is retired: it ends at that hook's limit, and the calls queued behind the hook
   * go to a fresh one, so other requests wait for a worker start, not for the limit.
   */
  private worker(): Generation {
    const generation = this.current;
    if (!generation) return this.start();
    if (this.stalled(generation)) this.retire(generation);
    return this.current ?? this.start();
  }

  private retire(generation: Generation): void {
    generation.retired = true;
    if (this.current === generation) this.current = undefined;
    const queued = [...this.pending].filter(([seq, call]) => call.generation === generation && seq > Atomics.load(generation.begun, 0));
    for (const [seq, call] of queued) {
      clearTimeout(call.timer);
      this.pending.delete(seq);
    }
    for (const [, call] of queued) this.dispatch(call.hook, call.args).then(call.resolve, call.reject);
  }

  /** Looked at once a call waited STALL_MS: a worker held by a hook gives its queue to a fresh one. */
  private checkStall(generation: Generation): void {
    if (!generation.retired && this.stalled(generation)) this.retire(generation);
  }

  /** Ends the worker; the calls still waiting on it fail with `reason`'s error (by default: the worker was ended). */
  private end(generation: Generation, reason?: (call: Pending) => Error): void {
    if (generation.ended) return;
    generation.ended = true;
    if (this.current === generation) this.current = undefined;
    void generation.worker.terminate();
    generation.port.close();
    generation.syncPort.close();
    for (const [seq, call] of this.pending) {
      if (call.generation !== generation) continue;
      clearTimeout(call.timer);
      this.pending.delete(seq);
      call.reject(reason ? reason(call) : this.startError('its worker thread ended'));
    }
  }

  /** A hook that ran past its limit: the worker is ended and counted, and the operator told which. */
  private hang(generation: Generation, hook: string, limitMs: number): Error {
    const { kind, name, guard, logger } = this.options;
    this.hung++;
    logger.warn(
      { kind, name, plugin: guard.labelOf(kind, name), hook, limitMs },
      `${kind} "${name}" (${guard.labelOf(kind, name)}) is isolated and ran past ${formatLimit(limitMs)} in ${hook}: its worker thread was ended; a fresh one starts on the next call`,
    );
    // the other calls were only queued behind the hung hook: they are asked again of a fresh worker
    const queued = [...this.pending].filter(([, call]) => call.generation === generation);
    for (const [seq, call] of queued) {
      clearTimeout(call.timer);
      this.pending.delete(seq);
    }
    this.end(generation);
    for (const [, call] of queued) this.dispatch(call.hook, call.args).then(call.resolve, call.reject);
    return guard.timedOut(kind, name, limitMs, { hook });
  }

  /** The hooks the entry's plugin has, once its worker built it (the factory's error if it refused its options). */
  hooks(): Promise<readonly AccessHook[]> {
    return this.worker().ready;
  }

  /** Waits for a worker started afresh; its factory failing now (it took the options before) is the worker's failure. */
  private async started(generation: Generation): Promise<void> {
    try {
      await generation.ready;
    } catch (error) {
      if (isSwarmError(error) && error.code === ErrorCodes.PLUGIN_LOAD_FAILED) throw error;
      throw this.startError(error instanceof Error ? error.message : String(error));
    }
  }

  /** An async hook, in the worker, held to the entry's limit. */
  async call(hook: AccessHook, args: readonly unknown[]): Promise<unknown> {
    const { generation, answer } = await this.dispatch(hook, args);
    if (hook !== 'visibility' || answer === undefined || answer === null) return answer;
    const wire = answer as WireVisibility;
    return 'everything' in wire ? SEES_ALL : this.view(generation, wire.view);
  }

  private async dispatch(hook: AccessHook, args: readonly unknown[]): Promise<Answered> {
    let generation = this.worker();
    await this.started(generation);
    // ended while this call waited for it to start (another call's hook hung): a fresh one
    if (generation.ended) {
      generation = this.worker();
      await this.started(generation);
    }
    return new Promise<Answered>((resolve, reject) => {
      const seq = ++this.seq;
      const timer = setTimeout(() => {
        if (!this.pending.delete(seq)) return;
        reject(this.hang(generation, `${hook}()`, this.options.limitMs));
      }, this.options.limitMs);
      this.pending.set(seq, { generation, hook, args, resolve, reject, timer });
      generation.port.ref();
      setTimeout(() => this.checkStall(generation), STALL_MS + BEAT_MS).unref();
      try {
        generation.port.postMessage({ op: 'call', seq, hook, args } satisfies AccessCall);
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(seq);
        this.hold(generation);
        reject(error as Error);
      }
    });
  }

  /** `sees` or `roles` in the worker, the host's loop waiting up to the short limit. */
  private callSync(generation: Generation, call: AccessSyncQuestion): unknown {
    const { kind, name, guard, syncLimitMs } = this.options;
    if (generation.ended || !generation.isReady) throw this.startError('its worker thread ended');
    const answer = askSync(generation, call, syncLimitMs);
    if (answer === 'late') {
      // roles() is counted by the time limits around the plugin's methods; sees() only here
      if (call.hook === 'sees') guard.observe(kind, name, syncLimitMs / 1000, 'timeout');
      throw this.hang(generation, `${call.hook}()`, syncLimitMs);
    }
    if (!answer) throw this.startError('its worker thread ended');
    if (!answer.ok) throw rebuild(answer.error);
    return answer.result;
  }

  roles(caller: Caller): readonly string[] {
    const generation = this.current;
    if (!generation?.isReady) {
      // a worker being started afresh: no words this time, rather than a wait on the host's loop
      if (!generation) this.start();
      return [];
    }
    return this.callSync(generation, { hook: 'roles', caller }) as readonly string[];
  }

  /** A view the worker holds; once the host lets go of it, the worker drops its copy. */
  private view(generation: Generation, view: number): ListVisibility {
    const visibility = workerView((objects) => this.callSync(generation, { hook: 'sees', view, objects }) as boolean[]);
    this.views.register(visibility, { generation, view });
    return visibility;
  }

  close(): void {
    if (this.current) this.end(this.current);
  }
}
