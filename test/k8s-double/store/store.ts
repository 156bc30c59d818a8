// The object store: etcd plus the API server's watch cache, in memory. One revision counter
// for every write (as etcd's), objects kept per resource in key order, and per resource a window
// of recent events so watches can resume from a resourceVersion until it is compacted away.
import type { Json } from '../model/decode.js';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generateName?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }>;
  generation?: number;
  [key: string]: Json | undefined;
}

/** A stored API object: plain JSON with metadata. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: Json | ObjectMeta | undefined;
}

/** The same object seen as plain JSON (what it is on the wire). */
export const asJson = (object: KObject): Json => object as unknown as Json;

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: EventType;
  object: KObject;
  /** The object before the change (MODIFIED and DELETED). */
  previous?: KObject;
  rv: number;
}

/** A live watch: the store calls `deliver` for every event of its resource, in order. */
export interface StoreWatcher {
  deliver(event: StoreEvent): void;
}

export const objectKey = (namespace: string | undefined, name: string): string => (namespace ? `${namespace}/${name}` : name);
export const keyOf = (object: KObject): string => objectKey(object.metadata.namespace, object.metadata.name);

class ResourceTable {
  readonly objects = new Map<string, KObject>();
  history: StoreEvent[] = [];
  /** The oldest resourceVersion a watch or an exact list may start from. */
  validFrom = 0;
  readonly watchers = new Set<StoreWatcher>();
  readonly listeners = new Set<(event: StoreEvent) => void>();
  private sortedKeys: string[] | undefined;

  keys(): string[] {
    this.sortedKeys ??= [...this.objects.keys()].sort();
    return this.sortedKeys;
  }
  keysChanged(): void {
    this.sortedKeys = undefined;
  }
}

export class ExpiredError extends Error {
  constructor(
    readonly wanted: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${wanted} (${oldest})`);
  }
}

export class Store {
  private revision = 1;
  private readonly tables = new Map<string, ResourceTable>();
  private readonly pending: Array<[ResourceTable, StoreEvent]> = [];
  private dispatching = false;

  /** @param historyCapacity events kept per resource for watches that resume (the watch cache's window). */
  constructor(private readonly historyCapacity = 1000) {}

  get resourceVersion(): number {
    return this.revision;
  }

  private table(resource: string): ResourceTable {
    let table = this.tables.get(resource);
    if (!table) {
      table = new ResourceTable();
      this.tables.set(resource, table);
    }
    return table;
  }

  /** The stored object itself (callers must not change it): for reads on hot paths. */
  peek(resource: string, key: string): KObject | undefined {
    return this.table(resource).objects.get(key);
  }

  get(resource: string, key: string): KObject | undefined {
    const found = this.peek(resource, key);
    return found && structuredClone(found);
  }

  /** Stored objects in key order (not copies), optionally only those under a key prefix (`namespace/`). */
  values(resource: string, prefix?: string): KObject[] {
    const table = this.table(resource);
    const out: KObject[] = [];
    for (const key of table.keys()) {
      if (prefix && !key.startsWith(prefix)) continue;
      out.push(table.objects.get(key)!);
    }
    return out;
  }

  count(resource: string): number {
    return this.table(resource).objects.size;
  }

  /** The objects as they were at `rv` (for exact lists and continue tokens), in key order. */
  valuesAt(resource: string, rv: number): KObject[] {
    const table = this.table(resource);
    if (rv < table.validFrom) throw new ExpiredError(rv, table.validFrom);
    if (rv >= this.revision) return this.values(resource);
    const state = new Map(table.objects);
    for (let i = table.history.length - 1; i >= 0; i--) {
      const event = table.history[i]!;
      if (event.rv <= rv) break;
      const key = keyOf(event.object);
      if (event.type === 'ADDED') state.delete(key);
      else state.set(key, event.previous!);
    }
    return [...state.keys()].sort().map((key) => state.get(key)!);
  }

  /** Writes an object (create or replace) with a new resourceVersion and tells watchers. */
  put(resource: string, object: KObject): KObject {
    const table = this.table(resource);
    const key = keyOf(object);
    const previous = table.objects.get(key);
    const rv = ++this.revision;
    object.metadata.resourceVersion = String(rv);
    table.objects.set(key, object);
    if (!previous) table.keysChanged();
    this.record(table, previous ? { type: 'MODIFIED', object, previous, rv } : { type: 'ADDED', object, rv });
    return object;
  }

  remove(resource: string, key: string): KObject | undefined {
    const table = this.table(resource);
    const previous = table.objects.get(key);
    if (!previous) return undefined;
    const rv = ++this.revision;
    table.objects.delete(key);
    table.keysChanged();
    const object = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(rv) } };
    this.record(table, { type: 'DELETED', object, previous, rv });
    return object;
  }

  private record(table: ResourceTable, event: StoreEvent): void {
    table.history.push(event);
    if (table.history.length > this.historyCapacity) {
      const dropped = table.history.splice(0, table.history.length - this.historyCapacity);
      table.validFrom = dropped[dropped.length - 1]!.rv;
    }
    for (const watcher of table.watchers) watcher.deliver(event);
    // listeners may write in turn: their events wait until this one reached every listener, so
    // each listener sees every resource's events in order
    this.pending.push([table, event]);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift()) {
        for (const listener of next[0].listeners) {
          try {
            listener(next[1]);
          } catch (error) {
            // a controller's bug must not fail the unrelated write that woke it
            console.error('k8s double: a store listener failed:', error);
          }
        }
      }
    } finally {
      this.dispatching = false;
    }
  }

  /**
   * Registers a watcher and replays what it missed since `fromRV` (events after it), before any
   * later event: both happen in this call, so nothing is lost or repeated.
   */
  watch(resource: string, watcher: StoreWatcher, fromRV?: number): () => void {
    const table = this.table(resource);
    if (fromRV !== undefined) {
      if (fromRV < table.validFrom) throw new ExpiredError(fromRV, table.validFrom);
      for (const event of table.history) if (event.rv > fromRV) watcher.deliver(event);
    }
    table.watchers.add(watcher);
    return () => table.watchers.delete(watcher);
  }

  /** In-process subscribers (controllers, kubelets): called after every write of the resource. */
  subscribe(resource: string, listener: (event: StoreEvent) => void): () => void {
    const table = this.table(resource);
    table.listeners.add(listener);
    return () => table.listeners.delete(listener);
  }

  /** Forgets the event history (of one resource or all): older resourceVersions answer 410 Gone. */
  compact(resource?: string): void {
    const tables = resource ? [this.table(resource)] : [...this.tables.values()];
    for (const table of tables) {
      table.history = [];
      table.validFrom = this.revision;
    }
  }

  oldestResourceVersion(resource: string): number {
    return this.table(resource).validFrom;
  }

  /** Ends every live watch of every resource (their `onDrop` decides how the connection ends). */
  watchers(resource?: string): StoreWatcher[] {
    const tables = resource ? [this.table(resource)] : [...this.tables.values()];
    return tables.flatMap((table) => [...table.watchers]);
  }
}
