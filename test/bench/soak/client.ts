import { Agent, request } from 'node:http';

/** What one API call came back with: an HTTP status, or `error` when no answer came (refused, reset, timeout). */
export interface Answer {
  status: number;
  body: string;
  error?: string;
}

const TIMEOUT_MS = 15_000;
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

  constructor(readonly port: number) {}

  /**
   * HTTP lets a server close an idle keep-alive connection at any moment, so a client's request can
   * cross the close on the wire; the server never read it, and the client is expected to send it
   * again (RFC 9112 §9.3.1; Node's documentation of `request.reusedSocket` shows this retry). Only
   * that case is retried, once: a reset on a fresh connection, or after any answer began, is a failure.
   */
  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const first = await this.once(method, path, body);
    if (first.error !== 'ECONNRESET' || !first.reusedConnection) return first.answer;
    this.resentOnClosedKeepAlive++;
    return (await this.once(method, path, body)).answer;
  }

  private once(method: string, path: string, body: unknown): Promise<{ answer: Answer; error?: string; reusedConnection: boolean }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve) => {
      let answered = false;
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
          res.on('end', () => resolve({ answer: { status: res.statusCode ?? 0, body: kept }, reusedConnection: false }));
          res.on('error', (error) => resolve({ answer: { status: 0, body: kept, error: error.message }, reusedConnection: false }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ?? error.message;
        resolve({ answer: { status: 0, body: '', error: code }, error: code, reusedConnection: req.reusedSocket && !answered });
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
