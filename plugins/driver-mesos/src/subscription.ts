import type { Logger } from '@swarm/plugin-sdk';
import { MasterHttpError, openSubscription, sendCall } from './master-client.js';
import type { MasterAddress } from './master-info.js';
import type { Call, Event, FrameworkInfo } from './protocol.js';
import { RecordIoDecoder } from './recordio.js';
import { MesosErrors } from './errors.js';

/** What the subscription reports to the cluster. */
export interface SubscriptionHandlers {
  subscribed(frameworkId: string, master: MasterAddress): void;
  event(event: Event): void;
  /** The stream ended (any reason): offers are gone; the subscription re-subscribes by itself. */
  disconnected(why: string): void;
}

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
/** Mesos' own default, used until SUBSCRIBED says otherwise. */
const DEFAULT_HEARTBEAT_S = 15;
const MISSED_HEARTBEATS = 5;

type CallBody<T> = T extends { framework_id: unknown } ? Omit<T, 'framework_id'> : never;
export type FrameworkCall = CallBody<Exclude<Call, { type: 'SUBSCRIBE' }>>;

export interface SubscriptionDeps {
  readonly frameworkInfo: () => FrameworkInfo;
  readonly handlers: SubscriptionHandlers;
  readonly logger: Logger;
}

/**
 * The SUBSCRIBE stream and the calls that go with it: subscribes to the current master, parses
 * the RecordIO stream, watches heartbeats, and re-subscribes with exponential backoff whenever
 * the stream ends, goes silent or the leader changes.
 */
export class Subscription {
  private readonly frameworkInfo: () => FrameworkInfo;
  private readonly handlers: SubscriptionHandlers;
  private readonly logger: Logger;

  private master: MasterAddress | undefined;
  private stream: { streamId: string; master: MasterAddress; close(): void } | undefined;
  private connecting = false;
  private stopped = true;
  private backoffMs = MIN_BACKOFF_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private lastActivity = 0;
  private heartbeatSeconds = DEFAULT_HEARTBEAT_S;
  private failedOver = false;
  private status = 'waiting for the leading master';

  constructor({ frameworkInfo, handlers, logger }: SubscriptionDeps) {
    this.frameworkInfo = frameworkInfo;
    this.handlers = handlers;
    this.logger = logger;
  }

  start(): void {
    this.stopped = false;
    this.watchdog = setInterval(() => this.checkHeartbeat(), 500);
    this.watchdog.unref();
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.drop('manager stopping');
  }

  /** The leading master changed (or is now known). */
  setMaster(master: MasterAddress | undefined, why?: string): void {
    const same = master && this.master && master.host === this.master.host && master.port === this.master.port;
    if (same) return;
    this.master = master;
    if (!master) {
      this.status = why ?? 'no Mesos master';
      return;
    }
    this.logger.info({ master: `${master.host}:${master.port}` }, 'mesos: leading master');
    if (this.stream && (this.stream.master.host !== master.host || this.stream.master.port !== master.port))
      this.drop('leading master changed');
    this.backoffMs = MIN_BACKOFF_MS;
    this.connect();
  }

  masterAddress(): MasterAddress | undefined {
    return this.stream?.master ?? this.master;
  }

  statusText(): string {
    return this.status;
  }

  isSubscribed(): boolean {
    return this.stream !== undefined;
  }

  async call(call: FrameworkCall, frameworkId: string): Promise<void> {
    const stream = this.stream;
    if (!stream) throw MesosErrors.notSubscribed();
    await sendCall(stream.master, { ...call, framework_id: { value: frameworkId } } as Call, stream.streamId);
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private connect(): void {
    if (this.stopped || this.stream || this.connecting || this.failedOver) return;
    const master = this.master;
    if (!master) return;
    this.connecting = true;
    const info = this.frameworkInfo();
    const call: Call = info.id
      ? { type: 'SUBSCRIBE', framework_id: info.id, subscribe: { framework_info: info } }
      : { type: 'SUBSCRIBE', subscribe: { framework_info: info } };
    openSubscription(master, call).then(
      (opened) => {
        this.connecting = false;
        if (this.stopped) {
          opened.response.destroy();
          return;
        }
        const decoder = new RecordIoDecoder();
        let closed = false;
        const handle = {
          streamId: opened.streamId,
          master: opened.master,
          close: () => {
            closed = true;
            opened.response.destroy();
          },
        };
        this.stream = handle;
        this.lastActivity = Date.now();
        opened.response.on('data', (chunk: Buffer) => {
          if (closed) return;
          this.lastActivity = Date.now();
          let records: string[];
          try {
            records = decoder.push(chunk);
          } catch (error) {
            this.logger.error(`mesos: bad record on the event stream (${(error as Error).message}); re-subscribing`);
            this.lostStream(handle, (error as Error).message);
            return;
          }
          for (const record of records) this.dispatch(record, handle);
        });
        const ended = (why: string) => {
          if (!closed) this.lostStream(handle, why);
        };
        opened.response.on('end', () => ended('the master closed the event stream'));
        opened.response.on('error', (error) => ended(error.message));
        opened.response.on('aborted', () => ended('the event stream was aborted'));
      },
      (error: Error) => {
        this.connecting = false;
        const text =
          error instanceof MasterHttpError
            ? error.message
            : `cannot subscribe to Mesos master ${master.host}:${master.port}: ${error.message}`;
        this.status = text;
        this.logger.error(text);
        this.scheduleRetry();
      },
    );
  }

  private dispatch(record: string, handle: { close(): void; master: MasterAddress }): void {
    let event: Event;
    try {
      event = JSON.parse(record) as Event;
    } catch {
      this.logger.warn({ record: record.slice(0, 200) }, 'mesos: event is not JSON; ignored');
      return;
    }
    if (event.type === 'SUBSCRIBED') {
      this.backoffMs = MIN_BACKOFF_MS;
      this.heartbeatSeconds = event.subscribed.heartbeat_interval_seconds ?? DEFAULT_HEARTBEAT_S;
      this.status = 'subscribed';
      this.handlers.subscribed(event.subscribed.framework_id.value, handle.master);
      return;
    }
    if (event.type === 'ERROR') {
      const message = event.error.message;
      this.logger.error(`mesos: the master sent an ERROR event: ${message}`);
      this.status = `master error: ${message}`;
      if (message === 'Framework failed over') this.failedOver = true;
    }
    this.handlers.event(event);
  }

  private lostStream(handle: { close(): void }, why: string): void {
    if (this.stream !== handle) return;
    handle.close();
    this.stream = undefined;
    if (!this.status.startsWith('master error')) this.status = `disconnected: ${why}`;
    this.logger.warn(`mesos: event stream lost: ${why}`);
    this.handlers.disconnected(why);
    this.scheduleRetry();
  }

  private drop(why: string): void {
    if (this.stream) this.lostStream(this.stream, why);
  }

  private checkHeartbeat(): void {
    if (!this.stream) return;
    const silentMs = Date.now() - this.lastActivity;
    if (silentMs > MISSED_HEARTBEATS * this.heartbeatSeconds * 1000) {
      this.logger.warn({ silentMs }, 'mesos: no heartbeat from the master; re-subscribing');
      this.lostStream(this.stream, `no event for ${Math.round(silentMs / 1000)} s (heartbeat ${this.heartbeatSeconds} s)`);
    }
  }
}
