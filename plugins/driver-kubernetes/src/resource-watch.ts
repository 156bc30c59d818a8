import * as k8s from '@kubernetes/client-node';
import type { Logger } from '@swarm/plugin-sdk';
import { KubernetesErrors } from './errors.js';
import { apiStatus } from './kube-api.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchHandlers<T> {
  /** The complete current state, after the first list and after every re-list (410 Gone). */
  replaced(items: readonly T[]): void;
  changed(type: WatchEventType, item: T): void;
  /** The API server answered again, or stopped answering (`error`). */
  health(error: string | undefined): void;
}

export interface WatchTarget<T> {
  /** The watch path (`/api/v1/nodes`). */
  path: string;
  labelSelector?: string;
  list(): Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>;
}

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;
// The API server ends a watch after its own timeout; asking for a bounded one keeps a silent,
// half-open connection from hiding changes for longer than this.
const WATCH_TIMEOUT_SECONDS = 300;

/**
 * List then watch, as client-go's reflector: the watch resumes from the last resourceVersion seen
 * (bookmarks keep it fresh while nothing changes), and a 410 Gone (the version left the server's
 * window) re-lists. So a disconnect neither misses nor repeats an event.
 */
export class ResourceWatch<T extends k8s.KubernetesObject> {
  private resourceVersion: string | undefined;
  private abort: AbortController | undefined;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | undefined;
  private firstSync: Promise<void>;
  private resolveFirstSync!: () => void;

  private readonly config: k8s.KubeConfig;
  private readonly target: WatchTarget<T>;
  private readonly handlers: WatchHandlers<T>;
  private readonly logger: Logger;

  constructor(options: { config: k8s.KubeConfig; target: WatchTarget<T>; handlers: WatchHandlers<T>; logger: Logger }) {
    this.config = options.config;
    this.target = options.target;
    this.handlers = options.handlers;
    this.logger = options.logger;
    this.firstSync = new Promise((resolve) => (this.resolveFirstSync = resolve));
  }

  /** Starts; resolves after the first list arrived, or after `waitMs` if the API server does not answer. */
  start(waitMs: number): Promise<void> {
    void this.run();
    return Promise.race([this.firstSync, new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref())]);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    let delay = 0;
    try {
      if (this.resourceVersion === undefined) await this.relist();
      const began = Date.now();
      await this.watch();
      // a server that ends watches at once must not be asked again in a tight loop
      if (Date.now() - began < 1000) delay = RETRY_MIN_MS;
    } catch (error) {
      if (this.stopped) return;
      const status = apiStatus(error);
      if (status === 410) this.resourceVersion = undefined;
      const text = error instanceof Error ? error.message : String(error);
      if (status !== 410) this.handlers.health(text);
      this.logger.debug({ path: this.target.path, err: text }, 'kubernetes: watch interrupted');
      // a 410 re-lists at once; anything else waits, longer each time, until the server answers
      delay = status === 410 ? 0 : this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.run(), delay);
  }

  private async relist(): Promise<void> {
    const list = await this.target.list();
    this.resourceVersion = list.metadata?.resourceVersion ?? '0';
    this.handlers.health(undefined);
    this.handlers.replaced(list.items);
    this.resolveFirstSync();
  }

  /** One watch request; resolves when the server ends it, rejects on a transport error or a 410. */
  private watch(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      let answered = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        if (error) reject(error instanceof Error ? error : KubernetesErrors.watchFailed({ message: String(error) }));
        else resolve();
      };
      const query: Record<string, string | number | boolean> = {
        allowWatchBookmarks: true,
        resourceVersion: this.resourceVersion ?? '0',
        timeoutSeconds: WATCH_TIMEOUT_SECONDS,
      };
      if (this.target.labelSelector) query['labelSelector'] = this.target.labelSelector;
      new k8s.Watch(this.config)
        .watch(
          this.target.path,
          query,
          (phase: string, object: T & { code?: number; message?: string }) => {
            if (phase === 'ERROR') {
              const gone = object.code === 410;
              if (gone) this.resourceVersion = undefined;
              this.abort?.abort();
              finish(
                KubernetesErrors.watchFailed({ message: object.message ?? 'watch error' }, { details: { kubernetesStatus: object.code } }),
              );
              return;
            }
            // the first thing the server sends proves it answers again
            if (!answered) {
              answered = true;
              this.retryMs = RETRY_MIN_MS;
              this.handlers.health(undefined);
            }
            const version = object.metadata?.resourceVersion;
            if (version) this.resourceVersion = version;
            if (phase === 'BOOKMARK') return;
            if (phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED') this.handlers.changed(phase, object);
          },
          (error: unknown) => finish(error && !isAbort(error) ? error : undefined),
        )
        .then(
          (abort) => {
            this.abort = abort;
            if (this.stopped) abort.abort();
            // resolved after the answer: not aborted means the server took the watch (200)
            else if (!abort.signal.aborted && !answered) {
              answered = true;
              this.retryMs = RETRY_MIN_MS;
              this.handlers.health(undefined);
            }
          },
          (error: unknown) => finish(error),
        );
    });
  }
}

function isAbort(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'AbortError' || /aborted/i.test(String((error as Error)?.message));
}
