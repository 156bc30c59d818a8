import type { Etcd3, IKeyValue } from 'etcd3';
import { type DiscoveryEntry, type DiscoveryWatcher } from '@swarm/plugin-sdk';
import { collectEntries, EntrySetDeduper } from '@swarm/plugin-sdk/helpers';
import { SnapshotWatch } from './snapshot-watch.js';
import { EtcdErrors } from './errors.js';

export interface EtcdNodesWatchDeps {
  readonly client: Etcd3;
  readonly prefix: string;
  readonly onEntries: (entries: readonly DiscoveryEntry[]) => void;
  readonly onError: (error: Error) => void;
}

/** Keeps the nodes prefix's keys in memory from a read plus its watch, and reports the entry set. */
export class EtcdNodesWatch implements DiscoveryWatcher {
  private readonly prefix: string;
  private readonly onError: (error: Error) => void;

  private readonly values = new Map<string, string>();
  private readonly deduper: EntrySetDeduper;
  private readonly watch: SnapshotWatch;

  constructor({ client, prefix, onEntries, onError }: EtcdNodesWatchDeps) {
    this.prefix = prefix;
    this.onError = onError;
    this.deduper = new EntrySetDeduper(onEntries);
    this.watch = new SnapshotWatch({
      client,
      range: { prefix },
      handlers: {
        snapshot: (kvs) => {
          this.values.clear();
          for (const kv of kvs) this.values.set(kv.key.toString(), kv.value.toString());
          this.publish();
        },
        put: (kv) => this.change(kv, kv.value.toString()),
        delete: (kv) => this.change(kv, undefined),
        error: onError,
      },
    });
  }

  stop(): void {
    this.watch.stop();
  }

  private change(kv: IKeyValue, value: string | undefined): void {
    const key = kv.key.toString();
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
    this.publish();
  }

  private publish(): void {
    this.deduper.offer(
      collectEntries(this.values.values(), (error) =>
        this.onError(EtcdErrors.entryIgnored({ path: this.prefix, reason: error.message }, { cause: error })),
      ),
    );
  }
}
