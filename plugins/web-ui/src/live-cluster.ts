import type { ClusterEvent, Node } from '@swarm/plugin-sdk';
import type { ManagerView, WebStream } from '@swarm/plugin-sdk/web';
import { presentNode } from './present.js';
import type { ActivityItem, WireCluster } from './wire.js';

export interface LiveClusterOptions {
  /** How often changes are gathered and sent (they are coalesced in between). */
  readonly tickMs?: number;
  /** How often an idle stream gets a comment, so proxies keep it open. */
  readonly keepAliveMs?: number;
  /** Activity lines sent per tick at most (the rest of a burst is dropped). */
  readonly maxActivity?: number;
  /**
   * How long to keep following the cluster after the last browser left, so a reload finds every
   * node's JSON ready instead of serializing the whole cluster again.
   */
  readonly lingerMs?: number;
}

interface Tracked {
  readonly key: string;
  /** The node's column as JSON, until it changes. */
  json: string | undefined;
  stopWatching: (() => void) | undefined;
  seen: number;
}

interface Client {
  readonly stream: WebStream;
  /** Waiting for the client to take what was written: nothing more is sent meanwhile. */
  congested: boolean;
  /** Changes were dropped while congested: the client gets a fresh snapshot once drained. */
  missed: boolean;
  closed: boolean;
}

function activityOf(event: ClusterEvent): ActivityItem | undefined {
  const action = event.Action ?? event.status ?? '';
  if (action === '' || action.startsWith('exec_')) return undefined;
  const attributes = (event.Actor as { Attributes?: Record<string, string> } | undefined)?.Attributes;
  const time =
    typeof event.timeNano === 'number' ? Math.floor(event.timeNano / 1e6) : typeof event.time === 'number' ? event.time * 1000 : Date.now();
  const type = action.startsWith('engine_') ? 'engine' : (event.Type ?? 'container');
  const name = type === 'engine' ? undefined : (attributes?.name ?? (type === 'image' ? event.id : undefined));
  return {
    time,
    type,
    action,
    ...(event.node?.Name ? { node: event.node.Name } : {}),
    ...(name ? { name } : {}),
    ...(event.id && type !== 'engine' ? { id: event.id } : {}),
  };
}

function frame(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}

export interface LiveClusterDeps {
  readonly view: ManagerView;
  readonly cluster: WireCluster;
  readonly options?: LiveClusterOptions;
}

/**
 * The cluster as live browsers see it: a snapshot when one connects, then the nodes that changed,
 * coalesced per tick. It follows the manager only while a browser is connected: nodes' `watch`
 * and the event stream. A node's column is
 * serialized once per change, whatever the number of browsers.
 */
export class LiveCluster {
  private readonly view: ManagerView;
  private readonly cluster: WireCluster;

  private readonly tracked = new Map<Node, Tracked>();
  /** Nodes by ID and by address, to find the node an event is about. */
  private readonly lookup = new Map<string, Node>();
  private readonly dirty = new Set<Node>();
  private removed: string[] = [];
  private activity: ActivityItem[] = [];
  private readonly clients = new Set<Client>();
  private readonly tickMs: number;
  private readonly keepAliveMs: number;
  private readonly maxActivity: number;
  private readonly lingerMs: number;
  private lingering: ReturnType<typeof setTimeout> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void) | undefined;
  private nextKey = 1;
  private generation = 0;
  private lastWrite = 0;

  constructor({ view, cluster, options = {} }: LiveClusterDeps) {
    this.view = view;
    this.cluster = cluster;
    this.tickMs = options.tickMs ?? 250;
    this.keepAliveMs = options.keepAliveMs ?? 20_000;
    this.maxActivity = options.maxActivity ?? 100;
    this.lingerMs = options.lingerMs ?? 30_000;
  }

  /** Serve one browser until `signal` aborts: a snapshot, then changes. */
  serve(stream: WebStream, signal: AbortSignal): void {
    const client: Client = { stream, congested: false, missed: false, closed: false };
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = undefined;
    if (!this.timer) this.start();
    this.clients.add(client);
    stream.write('retry: 2000\n\n');
    this.sendSnapshot(client);
    const leave = () => this.leave(client);
    if (signal.aborted) leave();
    else signal.addEventListener('abort', leave, { once: true });
  }

  /** How many browsers are connected. */
  get connected(): number {
    return this.clients.size;
  }

  /** End every stream and stop following the cluster. */
  close(): void {
    for (const client of this.clients) {
      client.closed = true;
      client.stream.end();
    }
    this.clients.clear();
    this.stop();
  }

  private leave(client: Client): void {
    client.closed = true;
    this.clients.delete(client);
    if (this.clients.size > 0) return;
    if (this.lingerMs <= 0) return this.stop();
    this.lingering = setTimeout(() => this.stop(), this.lingerMs);
    this.lingering.unref?.();
  }

  private start(): void {
    this.unsubscribe = this.view.subscribe((event) => this.onEvent(event));
    this.syncMembership();
    this.dirty.clear();
    this.removed = [];
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref?.();
  }

  private stop(): void {
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const tracked of this.tracked.values()) tracked.stopWatching?.();
    this.tracked.clear();
    this.lookup.clear();
    this.dirty.clear();
    this.removed = [];
    this.activity = [];
  }

  private onEvent(event: ClusterEvent): void {
    const item = activityOf(event);
    if (item) this.activity.push(item);
    const about = event.node;
    const node = about && (this.lookup.get(about.Id) ?? this.lookup.get(about.Addr));
    if (node) this.markDirty(node);
  }

  private markDirty(node: Node): void {
    const tracked = this.tracked.get(node);
    if (!tracked) return;
    tracked.json = undefined;
    this.dirty.add(node);
  }

  /** Track nodes that appeared, forget those gone; true when membership changed. */
  private syncMembership(): void {
    const generation = ++this.generation;
    const nodes = this.view.nodes();
    for (const node of nodes) {
      const known = this.tracked.get(node);
      if (known) {
        known.seen = generation;
        continue;
      }
      const tracked: Tracked = {
        key: `n${this.nextKey++}`,
        json: undefined,
        stopWatching: undefined,
        seen: generation,
      };
      this.tracked.set(node, tracked);
      if (node.id !== '') this.lookup.set(node.id, node);
      this.lookup.set(node.addr, node);
      tracked.stopWatching = node.watch(() => this.markDirty(node));
      this.dirty.add(node);
    }
    if (this.tracked.size === nodes.length) return;
    for (const [node, tracked] of this.tracked) {
      if (tracked.seen === generation) continue;
      tracked.stopWatching?.();
      this.tracked.delete(node);
      this.dirty.delete(node);
      if (this.lookup.get(node.id) === node) this.lookup.delete(node.id);
      if (this.lookup.get(node.addr) === node) this.lookup.delete(node.addr);
      this.removed.push(tracked.key);
    }
  }

  private columnJson(node: Node, tracked: Tracked): string {
    // An ID learnt after the first sight (an engine that connected) finds the node for events too.
    if (node.id !== '' && !this.lookup.has(node.id)) this.lookup.set(node.id, node);
    tracked.json ??= JSON.stringify(presentNode(node, tracked.key));
    return tracked.json;
  }

  private tick(): void {
    this.syncMembership();
    const now = Date.now();
    if (this.clients.size === 0) {
      // Lingering: changed nodes' JSON was dropped when they changed; nobody needs a message.
      this.dirty.clear();
      this.removed = [];
      this.activity = [];
      return;
    }
    if (this.dirty.size > 0 || this.removed.length > 0) {
      const changed: string[] = [];
      for (const node of this.dirty) {
        const tracked = this.tracked.get(node);
        if (tracked) changed.push(this.columnJson(node, tracked));
      }
      this.dirty.clear();
      const removed = this.removed;
      this.removed = [];
      this.broadcast(frame('nodes', `{"changed":[${changed.join(',')}],"removed":${JSON.stringify(removed)}}`));
    }
    if (this.activity.length > 0) {
      const batch = this.activity.length > this.maxActivity ? this.activity.slice(-this.maxActivity) : this.activity;
      this.activity = [];
      this.broadcast(frame('activity', JSON.stringify(batch)));
    }
    if (now - this.lastWrite >= this.keepAliveMs) this.broadcast(': keep-alive\n\n');
  }

  private snapshotFrame(): string {
    const columns: string[] = [];
    for (const node of this.view.nodes()) {
      const tracked = this.tracked.get(node);
      if (tracked) columns.push(this.columnJson(node, tracked));
    }
    return frame('snapshot', `{"cluster":${JSON.stringify(this.cluster)},"nodes":[${columns.join(',')}]}`);
  }

  private sendSnapshot(client: Client): void {
    this.syncMembership();
    this.write(client, this.snapshotFrame());
  }

  private broadcast(text: string): void {
    this.lastWrite = Date.now();
    for (const client of this.clients) {
      if (client.congested) client.missed = true;
      else this.write(client, text);
    }
  }

  /** Write, and when the client cannot keep up, hold back until it drained (then resync it if it missed changes). */
  private write(client: Client, text: string): void {
    if (client.stream.write(text)) return;
    client.congested = true;
    void client.stream.drained().then(() => {
      if (client.closed) return;
      client.congested = false;
      if (!client.missed) return;
      client.missed = false;
      this.sendSnapshot(client);
    });
  }
}
