import { request, type IncomingMessage } from 'node:http';
import { RecordIoDecoder } from '../../plugins/driver-mesos/src/recordio.js';

export interface RawEvent {
  type: string;
  [key: string]: unknown;
}

export interface RawAnswer {
  status: number;
  text: string;
  headers: IncomingMessage['headers'];
}

/** Send one HTTP request to the double as a scheduler would (or would not: headers are free). */
export function post(
  address: string,
  body: string,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
  method = 'POST',
): Promise<RawAnswer> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ host, port: Number(port), method, path: '/api/v1/scheduler', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : body);
  });
}

export interface RawSchedulerDeps {
  readonly address: string;
  readonly streamId: string;
  readonly response: IncomingMessage;
}

/** A hand-driven scheduler for testing the double: one SUBSCRIBE stream plus calls. */
export class RawScheduler {
  readonly address: string;
  readonly streamId: string;
  private readonly response: IncomingMessage;

  readonly events: RawEvent[] = [];
  ended = false;
  /** Acknowledge every reliable update as it arrives. */
  autoAck = false;
  private waiters: Array<() => void> = [];

  private constructor({ address, streamId, response }: RawSchedulerDeps) {
    this.address = address;
    this.streamId = streamId;
    this.response = response;
    const decoder = new RecordIoDecoder();
    response.on('data', (chunk: Buffer) => {
      for (const record of decoder.push(chunk)) {
        const event = JSON.parse(record) as RawEvent;
        this.events.push(event);
        const status = (event as UpdateEvent).update?.status;
        if (this.autoAck && event.type === 'UPDATE' && status?.uuid) {
          void this.call({ type: 'ACKNOWLEDGE', acknowledge: { agent_id: status.agent_id, task_id: status.task_id, uuid: status.uuid } });
        }
      }
      this.wake();
    });
    response.on('end', () => {
      this.ended = true;
      this.wake();
    });
    response.on('error', () => undefined);
  }

  static subscribe(address: string, frameworkInfo: Record<string, unknown>): Promise<RawScheduler> {
    const [host, port] = address.split(':');
    const id = frameworkInfo.id as { value: string } | undefined;
    const body = JSON.stringify({ type: 'SUBSCRIBE', ...(id ? { framework_id: id } : {}), subscribe: { framework_info: frameworkInfo } });
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host,
          port: Number(port),
          method: 'POST',
          path: '/api/v1/scheduler',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`SUBSCRIBE answered ${res.statusCode}`));
            return;
          }
          resolve(new RawScheduler({ address, streamId: String(res.headers['mesos-stream-id']), response: res }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  get frameworkId(): string {
    const subscribed = this.events.find((event) => event.type === 'SUBSCRIBED') as
      { subscribed: { framework_id: { value: string } } } | undefined;
    return subscribed?.subscribed.framework_id.value ?? '';
  }

  /** The first event (from `from` on) that matches, waiting for it up to `timeoutMs`. */
  async next(match: (event: RawEvent) => boolean, timeoutMs = 10_000, from = 0): Promise<RawEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.ended)
        throw new Error(`no matching event within ${timeoutMs} ms (got ${this.events.map((event) => event.type).join(',')})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  call(body: Record<string, unknown>): Promise<RawAnswer> {
    return post(this.address, JSON.stringify({ framework_id: { value: this.frameworkId }, ...body }), {
      'Content-Type': 'application/json',
      'Mesos-Stream-Id': this.streamId,
    });
  }

  close(): void {
    this.response.destroy();
  }
}

export type UpdateEvent = RawEvent & {
  update: {
    status: {
      task_id: { value: string };
      state: string;
      uuid?: string;
      data?: string;
      agent_id?: { value: string };
      message?: string;
      reason?: string;
    };
  };
};

export const isUpdate =
  (taskId: string, state?: string) =>
  (event: RawEvent): boolean => {
    const update = (event as UpdateEvent).update;
    return event.type === 'UPDATE' && update.status.task_id.value === taskId && (state === undefined || update.status.state === state);
  };
