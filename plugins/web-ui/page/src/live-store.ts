import type { ActivityItem, NodesMessage, SnapshotMessage, WireCluster, WireNode, WireViewer } from '../../src/wire.js';
import { pageUrl } from './api.js';
import { byName } from './format.js';

export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface LiveState {
  readonly cluster: WireCluster | undefined;
  /** Who is watching, when the manager has access control; undefined without it. */
  readonly viewer: WireViewer | undefined;
  /** Sorted by name. */
  readonly nodes: readonly WireNode[];
  readonly connection: Connection;
  /** Newest first. */
  readonly activity: readonly ActivityItem[];
  /** Bumped on every change, so views can tell new state from old cheaply. */
  readonly revision: number;
}

const MAX_ACTIVITY = 200;

function sorted(nodes: Iterable<WireNode>): WireNode[] {
  return [...nodes].sort((a, b) => byName(a.name, b.name) || (a.addr < b.addr ? -1 : a.addr > b.addr ? 1 : 0));
}

/**
 * The cluster as the live stream (`api/live`, server-sent events) tells it: a snapshot on every
 * (re)connection, then the nodes that changed. The browser's EventSource reconnects by itself.
 */
export class LiveStore {
  private state: LiveState = { cluster: undefined, viewer: undefined, nodes: [], connection: 'connecting', activity: [], revision: 0 };
  private readonly byKey = new Map<string, WireNode>();
  private readonly listeners = new Set<() => void>();
  private source: EventSource | undefined;

  get current(): LiveState {
    return this.state;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connect(): void {
    const source = new EventSource(pageUrl('api/live'));
    this.source = source;
    source.addEventListener('viewer', (event) => this.update({ viewer: JSON.parse((event as MessageEvent<string>).data) as WireViewer }));
    source.addEventListener('snapshot', (event) => this.snapshot(JSON.parse((event as MessageEvent<string>).data) as SnapshotMessage));
    source.addEventListener('nodes', (event) => this.changes(JSON.parse((event as MessageEvent<string>).data) as NodesMessage));
    source.addEventListener('activity', (event) => this.addActivity(JSON.parse((event as MessageEvent<string>).data) as ActivityItem[]));
    source.addEventListener('error', () => this.update({ connection: 'reconnecting' }));
  }

  close(): void {
    this.source?.close();
  }

  private update(change: Partial<LiveState>): void {
    this.state = { ...this.state, ...change, revision: this.state.revision + 1 };
    for (const listener of this.listeners) listener();
  }

  private snapshot(message: SnapshotMessage): void {
    this.byKey.clear();
    for (const node of message.nodes) this.byKey.set(node.key, node);
    this.update({ cluster: message.cluster, nodes: sorted(this.byKey.values()), connection: 'live' });
  }

  private changes(message: NodesMessage): void {
    let reorder = message.removed.length > 0;
    for (const key of message.removed) this.byKey.delete(key);
    for (const node of message.changed) {
      const before = this.byKey.get(node.key);
      if (!before || before.name !== node.name || before.addr !== node.addr) reorder = true;
      this.byKey.set(node.key, node);
    }
    const nodes = reorder ? sorted(this.byKey.values()) : this.state.nodes.map((node) => this.byKey.get(node.key) ?? node);
    this.update({ nodes, connection: 'live' });
  }

  private addActivity(items: ActivityItem[]): void {
    const activity = [...items.reverse(), ...this.state.activity].slice(0, MAX_ACTIVITY);
    this.update({ activity });
  }
}
