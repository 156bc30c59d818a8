import { type DiscoveryEntry, type DiscoveryWatcher } from '@swarm/plugin-sdk';
import { collectEntries, EntrySetDeduper, SerialRetryTask } from '@swarm/plugin-sdk/helpers';
import { CALL_TIMEOUT_MS, readIfPresent } from './zk-node-ops.js';
import type { ZkSession } from './zk-session.js';
import { ZkErrors } from './errors.js';

export interface ZkNodesWatchDeps {
  readonly session: ZkSession;
  readonly path: string;
  readonly onEntries: (entries: readonly DiscoveryEntry[]) => void;
  readonly onError: (error: Error) => void;
}

/**
 * Watches the children of the nodes path and reports the full entry set whenever it changes.
 * Each child's value is read once (entries are written once and never updated in place). Every
 * reconnection re-reads the tree and sets a new watch, so watches survive a store restart.
 */
export class ZkNodesWatch implements DiscoveryWatcher {
  private readonly session: ZkSession;
  private readonly path: string;
  private readonly onError: (error: Error) => void;

  private readonly values = new Map<string, string>();
  private readonly deduper: EntrySetDeduper;
  private readonly reader: SerialRetryTask;
  private readonly unlisten: () => void;

  constructor({ session, path, onEntries, onError }: ZkNodesWatchDeps) {
    this.session = session;
    this.path = path;
    this.onError = onError;
    this.deduper = new EntrySetDeduper(onEntries);
    this.reader = new SerialRetryTask(
      () => this.read(),
      (error) => onError(ZkErrors.readFailed({ path, reason: error.message }, { cause: error })),
    );
    this.unlisten = session.listen({ connected: () => this.reader.trigger() });
    this.reader.trigger();
  }

  stop(): void {
    this.reader.stop();
    this.unlisten();
  }

  private async read(): Promise<void> {
    await this.session.call<string>(CALL_TIMEOUT_MS, (client, done) => client.mkdirp(this.path, done));
    const children = await this.session.call<string[]>(CALL_TIMEOUT_MS, (client, done) =>
      client.getChildren(this.path, () => this.reader.trigger(), done),
    );
    for (const name of [...this.values.keys()]) if (!children.includes(name)) this.values.delete(name);
    for (const name of children) {
      if (this.values.has(name)) continue;
      const value = await readIfPresent(this.session, `${this.path}/${name}`);
      if (value !== undefined) this.values.set(name, value);
    }
    this.deduper.offer(
      collectEntries(this.values.values(), (error) =>
        this.onError(ZkErrors.entryIgnored({ path: this.path, reason: error.message }, { cause: error })),
      ),
    );
  }
}
