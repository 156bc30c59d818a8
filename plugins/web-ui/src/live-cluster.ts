import type { ClusterEvent, Node } from '@swarm/plugin-sdk';
import type { ManagerView, WebStream, WebViewer } from '@swarm/plugin-sdk/web';
import { type Activity, ActivityJudge, activityOf } from './activity.js';
import { Audience } from './audience.js';
import { presentNode } from './present.js';
import { identityKey, presentViewer, scopeOf } from './viewer.js';
import type { WireCluster } from './wire.js';

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
  /** Counts the node's changes, so scoped audiences know when their own column of it is stale. */
  version: number;
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
  /** The scoped viewers this browser is one of; undefined when it sees everything (the shared frames). */
  readonly audience: Audience<Client> | undefined;
  /** When something was last written to it, for keep-alives. */
  lastWrite: number;
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
 * and the event stream. A node's column is serialized once per change, whatever the number of
 * browsers: viewers who see everything share one frame; scoped viewers (access control) get
 * frames with only their containers, built once per identity (`Audience`), so their cost grows
 * with the changed nodes and the distinct scoped identities watching, never with the others'.
 */
export class LiveCluster {
  private readonly view: ManagerView;
  private readonly cluster: WireCluster;

  private readonly tracked = new Map<Node, Tracked>();
  /** Nodes by ID and by address, to find the node an event is about. */
  private readonly lookup = new Map<string, Node>();
  private readonly dirty = new Set<Node>();
  private removed: string[] = [];
  private activity: Activity[] = [];
  private readonly clients = new Set<Client>();
  /** Browsers that see everything: the shared frames go to them. */
  private readonly everything = new Set<Client>();
  private readonly audiences = new Map<string, Audience<Client>>();
  private readonly tickMs: number;
  private readonly keepAliveMs: number;
  private readonly maxActivity: number;
  private readonly lingerMs: number;
  private lingering: ReturnType<typeof setTimeout> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void) | undefined;
  private nextKey = 1;
  private generation = 0;

  constructor({ view, cluster, options = {} }: LiveClusterDeps) {
    this.view = view;
    this.cluster = cluster;
    this.tickMs = options.tickMs ?? 250;
    this.keepAliveMs = options.keepAliveMs ?? 20_000;
    this.maxActivity = options.maxActivity ?? 100;
    this.lingerMs = options.lingerMs ?? 30_000;
  }

  /**
   * Serve one browser until `signal` aborts: who they are (with access control), a snapshot of
   * what they may see, then its changes.
   */
  serve(stream: WebStream, signal: AbortSignal, viewer?: WebViewer): void {
    const audience = this.audienceFor(viewer);
    const client: Client = { stream, congested: false, missed: false, closed: false, audience, lastWrite: Date.now() };
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = undefined;
    if (!this.timer) this.start();
    this.clients.add(client);
    (audience?.clients ?? this.everything).add(client);
    stream.write('retry: 2000\n\n');
    if (viewer) stream.write(frame('viewer', JSON.stringify(presentViewer(viewer))));
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
    this.everything.clear();
    this.audiences.clear();
    this.stop();
  }

  /** The audience of a scoped viewer; undefined for one who sees everything. */
  private audienceFor(viewer: WebViewer | undefined): Audience<Client> | undefined {
    const sees = scopeOf(viewer);
    if (!viewer || !sees) return undefined;
    const key = identityKey(viewer);
    const known = this.audiences.get(key);
    if (known) return known;
    const audience = new Audience<Client>(sees);
    this.audiences.set(key, audience);
    return audience;
  }

  private leave(client: Client): void {
    client.closed = true;
    if (!this.clients.delete(client)) return;
    const { audience } = client;
    if (audience) {
      audience.clients.delete(client);
      if (audience.clients.size === 0) {
        for (const [key, candidate] of this.audiences) if (candidate === audience) this.audiences.delete(key);
      }
    } else {
      this.everything.delete(client);
    }
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

  private nodeOf(event: ClusterEvent): Node | undefined {
    const about = event.node;
    return about && (this.lookup.get(about.Id) ?? this.lookup.get(about.Addr));
  }

  private onEvent(event: ClusterEvent): void {
    const item = activityOf(event);
    if (item) this.activity.push({ item, event });
    const node = this.nodeOf(event);
    if (node) this.markDirty(node);
  }

  private markDirty(node: Node): void {
    const tracked = this.tracked.get(node);
    if (!tracked) return;
    tracked.json = undefined;
    tracked.version++;
    this.dirty.add(node);
  }

  /** Track nodes that appeared, forget those gone. */
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
        version: 0,
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
      for (const audience of this.audiences.values()) audience.forget(node);
      if (this.lookup.get(node.id) === node) this.lookup.delete(node.id);
      if (this.lookup.get(node.addr) === node) this.lookup.delete(node.addr);
      this.removed.push(tracked.key);
    }
  }

  /** The node's column for `audience`, or the shared one (every container) without. */
  private columnJson(node: Node, tracked: Tracked, audience: Audience<Client> | undefined): string {
    // An ID learnt after the first sight (an engine that connected) finds the node for events too.
    if (node.id !== '' && !this.lookup.has(node.id)) this.lookup.set(node.id, node);
    if (audience) return audience.column(node, tracked.key, tracked.version);
    tracked.json ??= JSON.stringify(presentNode(node, tracked.key));
    return tracked.json;
  }

  /** Each group of browsers that gets the same frames: those who see everything, then each scoped audience. */
  private *groups(): Generator<[Audience<Client> | undefined, ReadonlySet<Client>]> {
    if (this.everything.size > 0) yield [undefined, this.everything];
    for (const audience of this.audiences.values()) yield [audience, audience.clients];
  }

  private tick(): void {
    this.syncMembership();
    if (this.clients.size === 0) {
      // Lingering: changed nodes' JSON was dropped when they changed; nobody needs a message.
      this.dirty.clear();
      this.removed = [];
      this.activity = [];
      return;
    }
    if (this.dirty.size > 0 || this.removed.length > 0) {
      const changed = [...this.dirty].flatMap((node) => {
        const tracked = this.tracked.get(node);
        return tracked ? [[node, tracked] as const] : [];
      });
      this.dirty.clear();
      const removed = JSON.stringify(this.removed);
      this.removed = [];
      for (const [audience, clients] of this.groups()) {
        const columns = changed.map(([node, tracked]) => this.columnJson(node, tracked, audience));
        this.broadcast(clients, frame('nodes', `{"changed":[${columns.join(',')}],"removed":${removed}}`));
      }
    }
    if (this.activity.length > 0) this.sendActivity();
    const now = Date.now();
    for (const client of this.clients) {
      if (!client.congested && now - client.lastWrite >= this.keepAliveMs) this.write(client, ': keep-alive\n\n');
    }
  }

  /** The tick's activity: all of it to those who see everything, each audience the lines about what it sees. */
  private sendActivity(): void {
    const batch = this.activity.length > this.maxActivity ? this.activity.slice(-this.maxActivity) : this.activity;
    this.activity = [];
    const judge =
      this.audiences.size > 0
        ? new ActivityJudge(
            (event) => this.nodeOf(event),
            () => this.view.containers(),
          )
        : undefined;
    for (const [audience, clients] of this.groups()) {
      const lines = audience && judge ? batch.filter((entry) => judge.visible(entry, audience.sees)) : batch;
      if (lines.length > 0) this.broadcast(clients, frame('activity', JSON.stringify(lines.map((entry) => entry.item))));
    }
  }

  private snapshotFrame(audience: Audience<Client> | undefined): string {
    const columns: string[] = [];
    for (const node of this.view.nodes()) {
      const tracked = this.tracked.get(node);
      if (tracked) columns.push(this.columnJson(node, tracked, audience));
    }
    return frame('snapshot', `{"cluster":${JSON.stringify(this.cluster)},"nodes":[${columns.join(',')}]}`);
  }

  private sendSnapshot(client: Client): void {
    this.syncMembership();
    this.write(client, this.snapshotFrame(client.audience));
  }

  private broadcast(clients: ReadonlySet<Client>, text: string): void {
    for (const client of clients) {
      if (client.congested) client.missed = true;
      else this.write(client, text);
    }
  }

  /** Write, and when the client cannot keep up, hold back until it drained (then resync it if it missed changes). */
  private write(client: Client, text: string): void {
    client.lastWrite = Date.now();
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
