import type { Etcd3, IKeyValue, Watcher } from 'etcd3';
import { SerialRetryTask } from '@swarm/plugin-sdk/helpers';
import { EtcdErrors } from './errors.js';

export interface SnapshotHandlers {
  /** The full current state (every start and restart of the watch). */
  snapshot(kvs: readonly IKeyValue[]): void;
  put(kv: IKeyValue): void;
  delete(kv: IKeyValue): void;
  error(error: Error): void;
}

export type WatchedRange = { readonly key: string } | { readonly prefix: string };

export interface SnapshotWatchDeps {
  readonly client: Etcd3;
  readonly range: WatchedRange;
  readonly handlers: SnapshotHandlers;
}

/**
 * Reads a key or prefix, then watches it from the next revision so no change falls between the
 * read and the watch. The client resumes a dropped watch by itself; a watch that fails for good
 * (compaction, ...) is restarted with a fresh read, retried with backoff while etcd is down.
 */
export class SnapshotWatch {
  private readonly client: Etcd3;
  private readonly range: WatchedRange;
  private readonly handlers: SnapshotHandlers;

  private watcher: Watcher | undefined;
  private readonly starter: SerialRetryTask;

  constructor({ client, range, handlers }: SnapshotWatchDeps) {
    this.client = client;
    this.range = range;
    this.handlers = handlers;
    this.starter = new SerialRetryTask(
      () => this.start(),
      (error) => handlers.error(EtcdErrors.readFailed({ what: this.describe(), reason: error.message }, { cause: error })),
    );
    this.starter.trigger();
  }

  stop(): void {
    this.starter.stop();
    this.cancel();
  }

  private async start(): Promise<void> {
    this.cancel();
    const read = 'key' in this.range ? this.client.get(this.range.key) : this.client.getAll().prefix(this.range.prefix);
    const response = await read.exec();
    this.handlers.snapshot(response.kvs);
    const builder = this.client.watch();
    const scoped = 'key' in this.range ? builder.key(this.range.key) : builder.prefix(this.range.prefix);
    const watcher = scoped.startRevision(String(Number(response.header.revision) + 1)).watcher();
    watcher.on('put', (kv) => this.handlers.put(kv));
    watcher.on('delete', (kv) => this.handlers.delete(kv));
    watcher.on('disconnected', (error) =>
      this.handlers.error(EtcdErrors.watchLost({ what: this.describe(), reason: error.message }, { cause: error })),
    );
    watcher.on('error', (error) => {
      this.handlers.error(EtcdErrors.watchFailed({ what: this.describe(), reason: error.message }, { cause: error }));
      this.starter.trigger();
    });
    this.watcher = watcher;
  }

  private cancel(): void {
    const watcher = this.watcher;
    this.watcher = undefined;
    if (watcher !== undefined) {
      watcher.removeAllListeners();
      watcher.on('error', () => undefined);
      void watcher.cancel().catch(() => undefined);
    }
  }

  private describe(): string {
    return 'key' in this.range ? this.range.key : `${this.range.prefix}*`;
  }
}
