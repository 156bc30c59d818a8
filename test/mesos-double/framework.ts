import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { recordFrame } from './recordio-writer.js';
import type { Resource, TaskStatusJson } from './types.js';

export interface OutstandingOffer {
  id: string;
  agentId: string;
  resources: Resource[];
}

/** A framework as the master tracks it: its stream, offers, filters and unacknowledged updates. */
export class Framework {
  stream: { id: string; response: ServerResponse } | undefined;
  readonly offers = new Map<string, OutstandingOffer>();
  /** agentId → time (ms) before which that agent is not offered again (refuse_seconds). */
  readonly refusedUntil = new Map<string, number>();
  suppressed = false;
  failoverTimer: NodeJS.Timeout | undefined;
  /** taskId → status updates waiting for ACKNOWLEDGE, oldest first (the agent's status update stream). */
  readonly unacknowledged = new Map<string, TaskStatusJson[]>();

  constructor(
    readonly id: string,
    public info: { name?: string; user?: string; failover_timeout?: number; role?: string },
  ) {}

  connected(): boolean {
    return this.stream !== undefined;
  }

  /** Write one event on the stream; false when there is none or it is closed. */
  send(event: object): boolean {
    const stream = this.stream;
    if (!stream || stream.response.writableEnded || stream.response.destroyed) return false;
    stream.response.write(recordFrame(event));
    return true;
  }

  /** Close the stream, after an ERROR event when `error` is given. */
  close(error?: string): void {
    const stream = this.stream;
    if (!stream) return;
    if (error) this.send({ type: 'ERROR', error: { message: error } });
    this.stream = undefined;
    stream.response.end();
  }
}

export function newStreamId(): string {
  return randomUUID();
}

/** The base64 of 16 random bytes: the `uuid` of a reliable status update. */
export function newUpdateUuid(): string {
  return randomBytes(16).toString('base64');
}
