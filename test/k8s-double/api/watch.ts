// A watch as the API server streams it: one JSON WatchEvent per line, the current state first
// (ADDED) when no resourceVersion is given, otherwise the events after it; objects that stop
// matching the selectors arrive as DELETED; BOOKMARKs when asked for; an ERROR event with 410
// Expired when the resourceVersion is older than the kept history; the stream ends after
// timeoutSeconds.
import type { ServerResponse } from 'node:http';
import type { Json } from '../model/decode.js';
import type { ResourceDef } from '../model/resources.js';
import { ExpiredError, keyOf, type KObject, type Store, type StoreEvent, type StoreWatcher } from '../store/store.js';
import { errors } from './status.js';

export interface WatchOptions {
  def: ResourceDef;
  storeName: string;
  /** Key prefix (`namespace/`) for namespaced watches. */
  prefix?: string;
  matches: (object: KObject) => boolean;
  /** undefined: send the current state first (resourceVersion unset or "0"). */
  fromRV?: number;
  sendInitialEvents: boolean;
  bookmarks: boolean;
  bookmarkIntervalMs: number;
  timeoutSeconds?: number;
  /** Turns an object into what the client asked for (the object, or a Table row). */
  encode: (object: KObject) => Json;
}

/** Watch connections are cut when their client reads too slowly (the API server's buffer limit). */
const MAX_BUFFERED = 16 * 1024 * 1024;

export interface HttpWatchDeps {
  readonly response: ServerResponse;
  readonly options: WatchOptions;
  readonly store: Store;
  readonly onEnd: (watch: HttpWatch) => void;
}

export class HttpWatch implements StoreWatcher {
  private readonly response: ServerResponse;
  private readonly options: WatchOptions;
  private readonly store: Store;
  private readonly onEnd: (watch: HttpWatch) => void;

  private unregister: (() => void) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor({ response, options, store, onEnd }: HttpWatchDeps) {
    this.response = response;
    this.options = options;
    this.store = store;
    this.onEnd = onEnd;
  }

  start(): void {
    const { options, response, store } = this;
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    // the API server flushes the headers at once: clients see the watch open before the first event
    response.flushHeaders();
    response.on('close', () => this.stop());
    try {
      if (options.fromRV === undefined || options.sendInitialEvents) {
        for (const object of store.values(options.storeName, options.prefix)) {
          if (options.matches(object)) this.write('ADDED', object);
        }
        if (options.sendInitialEvents) this.bookmark(true);
        this.unregister = store.watch(options.storeName, this);
      } else {
        this.unregister = store.watch(options.storeName, this, options.fromRV);
      }
    } catch (error) {
      if (!(error instanceof ExpiredError)) throw error;
      this.writeLine({ type: 'ERROR', object: errors.expired(error.message).status as unknown as Json });
      this.end();
      return;
    }
    if (options.bookmarks) this.timers.push(setInterval(() => this.bookmark(false), options.bookmarkIntervalMs));
    if (options.timeoutSeconds !== undefined) this.timers.push(setTimeout(() => this.end(), options.timeoutSeconds * 1000));
  }

  deliver(event: StoreEvent): void {
    if (this.closed) return;
    const { options } = this;
    if (options.prefix && !keyOf(event.object).startsWith(options.prefix)) return;
    const now = event.type !== 'DELETED' && options.matches(event.object);
    const before = event.previous !== undefined && options.matches(event.previous);
    if (now && before) this.write('MODIFIED', event.object);
    else if (now) this.write('ADDED', event.object);
    else if (before) {
      const gone =
        event.type === 'DELETED'
          ? event.object
          : { ...event.previous!, metadata: { ...event.previous!.metadata, resourceVersion: String(event.rv) } };
      this.write('DELETED', gone);
    }
  }

  private bookmark(initialEventsEnd: boolean): void {
    const { def } = this.options;
    const metadata: Record<string, Json> = { resourceVersion: String(this.store.resourceVersion) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    this.writeLine({
      type: 'BOOKMARK',
      object: { kind: def.kind, apiVersion: def.group ? `${def.group}/${def.version}` : def.version, metadata },
    });
  }

  private write(type: string, object: KObject): void {
    this.writeLine({ type, object: this.options.encode(object) });
  }

  private writeLine(event: Json): void {
    if (this.closed) return;
    this.response.write(`${JSON.stringify(event)}\n`);
    if (this.response.writableLength > MAX_BUFFERED) this.drop();
  }

  /** Ends the stream as a timeout does: the client sees a clean end and watches again. */
  end(): void {
    if (this.closed) return;
    this.response.end();
    this.stop();
  }

  /** Cuts the connection mid-stream, as a network failure or an API server restart would. */
  drop(): void {
    if (this.closed) return;
    this.response.destroy();
    this.stop();
  }

  private stop(): void {
    if (this.closed) return;
    this.closed = true;
    this.unregister?.();
    for (const timer of this.timers) clearInterval(timer);
    this.onEnd(this);
  }
}
