import type { IncomingMessage } from 'node:http';
import type { Logger } from '@swarm/plugin-sdk';
import type { DockerEvent } from '@swarm/plugin-sdk/docker';
import { readJsonLines, type EngineClient } from '@swarm/plugin-sdk/helpers';

const MIN_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

export interface EngineEventFeedDeps {
  readonly engine: EngineClient;
  readonly onEvent: (event: DockerEvent) => void;
  readonly logger: Logger;
}

/**
 * One agent engine's `/events` stream, kept open while the agent is known: one JSON event a line,
 * re-opened with backoff when it ends. No `since` on re-open: replayed events would reach
 * clients twice, and the task updates cover what happened while the stream was down.
 */
export class EngineEventFeed {
  private readonly engine: EngineClient;
  private readonly onEvent: (event: DockerEvent) => void;
  private readonly logger: Logger;

  private response: IncomingMessage | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = MIN_RETRY_MS;
  private stopped = true;
  private lastError: string | undefined;

  constructor({ engine, onEvent, logger }: EngineEventFeedDeps) {
    this.engine = engine;
    this.onEvent = onEvent;
    this.logger = logger;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.response?.destroy();
    this.response = undefined;
  }

  /** True while the engine's stream is open (its events are then the authoritative ones). */
  isLive(): boolean {
    return this.response !== undefined;
  }

  private open(): void {
    this.retryTimer = undefined;
    this.engine.stream({ path: '/events' }).then(
      (response) => {
        if (this.stopped) {
          response.destroy();
          return;
        }
        this.response = response;
        this.retryMs = MIN_RETRY_MS;
        if (this.lastError !== undefined) this.logger.info({ engine: this.engine.label }, 'mesos: agent engine event stream open again');
        this.lastError = undefined;
        // a line that is not an event is skipped
        readJsonLines(response, {
          value: (event) => this.onEvent(event as DockerEvent),
          end: (error) => this.ended(response, error?.message ?? 'the engine closed its event stream'),
        });
      },
      (error: Error) => this.retry(error.message),
    );
  }

  private ended(response: IncomingMessage, why: string): void {
    if (this.response !== response) return;
    this.response = undefined;
    this.retry(why);
  }

  private retry(why: string): void {
    if (this.stopped || this.retryTimer) return;
    if (why !== this.lastError)
      this.logger.warn({ engine: this.engine.label, err: why }, 'mesos: agent engine event stream unavailable; retrying');
    this.lastError = why;
    this.retryTimer = setTimeout(() => this.open(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }
}
