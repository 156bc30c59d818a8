import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';

/** What one API call came back with: an HTTP status, or `error` when no answer came (refused, reset, timeout). */
export interface Answer {
  status: number;
  body: string;
  error?: string;
}

const TIMEOUT_MS = 15_000;
/** The manager closes a keep-alive connection idle this long (`core/src/api/index.ts`), less a margin for a busy loop. */
const SERVER_IDLE_CLOSE_MS = 60_000 - 5_000;
/** Answers are read whole but kept only this long: a `ps -a` can be megabytes. */
const KEPT_BODY = 4096;

/**
 * Keep-alive HTTP to one manager on 127.0.0.1: the docker CLI would cost a process per call, and a
 * client without keep-alive a connection per call, where the soak must make ~280 calls a second.
 */
export class ApiClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 });
  /**
   * Calls sent again because the idle connection they went out on had just been closed by the
   * manager (its keep-alive timeout) and was reset before any answer: counted for the report.
   */
  resentOnClosedKeepAlive = 0;
  /** When each pooled connection's last answer ended: how long it had been idle when reused. */
  private readonly lastAnswerEnded = new WeakMap<Socket, number>();

  constructor(readonly port: number) {}

  /**
   * HTTP lets a server close an idle keep-alive connection at any moment, so a client's request can
   * cross the close on the wire; the server never read it, and the client is expected to send it
   * again (RFC 9112 §9.3.1; Node's documentation of `request.reusedSocket` shows this retry). Only
   * that case is retried, once: a reused connection idle for about the manager's keep-alive timeout,
   * reset before any answer. Any other reset (a fresh connection, one in use, an answer begun) is a
   * failure, so a manager that drops requests is still caught.
   */
  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const first = await this.once(method, path, body);
    if (first.answer.error !== 'ECONNRESET' || first.reusedAfterIdleMs === undefined || first.reusedAfterIdleMs < SERVER_IDLE_CLOSE_MS) {
      return first.answer;
    }
    this.resentOnClosedKeepAlive++;
    return (await this.once(method, path, body)).answer;
  }

  private once(method: string, path: string, body: unknown): Promise<{ answer: Answer; reusedAfterIdleMs?: number }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve) => {
      let answered = false;
      let idleMs: number | undefined;
      let connection: Socket | undefined;
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          agent: this.agent,
          timeout: TIMEOUT_MS,
          headers: payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
        },
        (res) => {
          answered = true;
          let kept = '';
          res.setEncoding('latin1');
          res.on('data', (chunk: string) => {
            if (kept.length < KEPT_BODY) kept += chunk.slice(0, KEPT_BODY - kept.length);
          });
          res.on('end', () => {
            if (connection !== undefined) this.lastAnswerEnded.set(connection, Date.now());
            resolve({ answer: { status: res.statusCode ?? 0, body: kept } });
          });
          res.on('error', (error) => resolve({ answer: { status: 0, body: kept, error: error.message } }));
        },
      );
      req.on('socket', (socket: Socket) => {
        connection = socket;
        const ended = this.lastAnswerEnded.get(socket);
        if (req.reusedSocket && ended !== undefined) idleMs = Date.now() - ended;
      });
      req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        resolve({
          answer: { status: 0, body: '', error: error.code ?? error.message },
          ...(answered || idleMs === undefined ? {} : { reusedAfterIdleMs: idleMs }),
        });
      });
      req.end(payload);
    });
  }

  /** A whole JSON answer (for the final `docker ps`, which is bigger than what `call` keeps). */
  json<T>(path: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: this.port, path, agent: this.agent, timeout: 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
            resolve(JSON.parse(Buffer.concat(chunks).toString()) as T);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer in 60 s`)));
      req.on('error', reject);
      req.end();
    });
  }

  /**
   * `GET /events` held open for `holdMs`, then left (the client hangs up, as `docker events` on
   * Ctrl-C): the manager must drop its subscription. Resolves with the status and bytes seen.
   */
  stream(path: string, holdMs: number): Promise<Answer> {
    return new Promise((resolve) => {
      let status = 0;
      let bytes = 0;
      const req = request({ host: '127.0.0.1', port: this.port, path }, (res) => {
        status = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('error', () => undefined);
        res.on('end', () => resolve({ status, body: `${bytes} bytes` }));
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve({ status, body: `${bytes} bytes` });
      }, holdMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve({ status, body: '', error: error.code ?? error.message });
      });
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
