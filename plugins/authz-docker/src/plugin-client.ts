import { readFile } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { RetryableFailure, withRetry, type RetryListener } from './backoff.js';
import type { PluginEndpoint } from './discovery.js';
import { goTransportError, goUrlError, type DialTarget } from './go-errors.js';
import { PluginWireError } from './errors.js';
import { decodeGoStruct } from './go-json.js';

/*
 * A client of Docker's legacy plugin protocol (moby pkg/plugins client.go): every call is a POST
 * of a JSON body to `/<Service.Method>` with `Accept: application/vnd.docker.plugins.v1.2+json`;
 * a 200 carries the answer, any other status an error (`{"Err": "..."}` or plain text). Calls that
 * cannot reach the plugin are retried on dockerd's schedule; there is no per-call timeout, as in
 * dockerd. Connections are kept alive, so a call over a Unix socket costs one round trip.
 */

export const PLUGIN_MIME_TYPE = 'application/vnd.docker.plugins.v1.2+json';

/** Resends after kept-alive connections found dead, before counting it as a failure. */
const MAX_STALE_RESENDS = 4;

/** dockerd's Host header for plugins on a Unix socket. */
const UNIX_HOST = 'plugin.moby.localhost';

interface Target {
  readonly scheme: 'http' | 'https';
  /** The Host header, and the host part of the URL Go's errors quote. */
  readonly host: string;
  readonly dial: DialTarget;
  readonly connect: Pick<RequestOptions, 'socketPath' | 'host' | 'port'>;
}

function targetOf(addr: string): Target {
  if (addr.startsWith('unix://')) {
    const path = addr.slice('unix://'.length);
    return { scheme: 'http', host: UNIX_HOST, dial: { network: 'unix', path }, connect: { socketPath: path } };
  }
  const url = new URL(addr);
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return { scheme, host: url.host, dial: { network: 'tcp', hostPort: `${url.hostname}:${port}` }, connect: { host: hostname, port } };
}

async function agentFor(endpoint: PluginEndpoint, scheme: 'http' | 'https'): Promise<HttpAgent> {
  if (scheme === 'http') return new HttpAgent({ keepAlive: true });
  const tls = endpoint.tls;
  const read = (path: string | undefined) => (path === undefined ? undefined : readFile(path));
  const [ca, cert, key] = await Promise.all([read(tls?.caFile), read(tls?.certFile), read(tls?.keyFile)]);
  return new HttpsAgent({ keepAlive: true, ca, cert, key, rejectUnauthorized: !(tls?.insecureSkipVerify ?? false) });
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

export class PluginClient {
  private readonly target: Target;
  private readonly agent: HttpAgent;
  private readonly retryBudgetMs: number;
  private readonly onRetry: RetryListener | undefined;

  private constructor(parts: { target: Target; agent: HttpAgent; retryBudgetMs: number; onRetry?: RetryListener }) {
    ({ target: this.target, agent: this.agent, retryBudgetMs: this.retryBudgetMs, onRetry: this.onRetry } = parts);
  }

  static async create(endpoint: PluginEndpoint, retry: { budgetMs: number; onRetry?: RetryListener }): Promise<PluginClient> {
    const target = targetOf(endpoint.addr);
    return new PluginClient({
      target,
      agent: await agentFor(endpoint, target.scheme),
      retryBudgetMs: retry.budgetMs,
      onRetry: retry.onRetry,
    });
  }

  /**
   * POSTs `body` (already JSON) to `/<method>` and returns the 200 answer's text. Throws an Error
   * worded as dockerd's plugin client words it (`AuthZPlugin.AuthZReq: <Err>`, `Post "...": ...`).
   */
  async call(method: string, body: string): Promise<string> {
    const answer = await withRetry(() => this.post(method, body), this.retryBudgetMs, this.onRetry);
    if (answer.status === 200) return answer.text;
    let reason = answer.text;
    try {
      const remote = decodeGoStruct(answer.text, 'plugins.responseErr', { Err: 'string' });
      if (typeof remote.Err === 'string' && remote.Err !== '') reason = remote.Err;
    } catch {
      // not JSON: dockerd quotes the body as it came
    }
    throw new PluginWireError(`${method}: ${reason}`);
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * A kept-alive connection the plugin closed meanwhile fails the first write; Go's transport
   * then resends at once on a new connection, and so does this (dockerd's backoff is for plugins
   * that are down, not for idle connections that timed out).
   */
  private async post(method: string, body: string): Promise<Answer> {
    // every idle connection in the pool may have died: a fresh one comes at the latest after those
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.postOnce(method, body);
      } catch (error) {
        if (!(error instanceof StaleConnection)) throw error;
        if (attempt >= MAX_STALE_RESENDS) throw new RetryableFailure(error.cause);
      }
    }
  }

  private postOnce(method: string, body: string): Promise<Answer> {
    const { target } = this;
    const path = `/${method}`;
    const payload = Buffer.from(body);
    const options: RequestOptions = {
      ...target.connect,
      agent: this.agent,
      method: 'POST',
      path,
      headers: { Host: target.host, Accept: PLUGIN_MIME_TYPE, 'Content-Length': payload.length },
    };
    const send = target.scheme === 'https' ? httpsRequest : httpRequest;
    return new Promise<Answer>((resolve, reject) => {
      const fail = (error: Error) => {
        const url = `${target.scheme}://${target.host}${path}`;
        const worded = new PluginWireError(goUrlError(url, goTransportError(error, target.dial)));
        reject(req.reusedSocket && !answered ? new StaleConnection(worded) : new RetryableFailure(worded));
      };
      let answered = false;
      const req = send(options, (res: IncomingMessage) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', fail);
      });
      req.on('error', fail);
      req.end(payload);
    });
  }
}

/** A reused connection died before the plugin answered: resend on a fresh one. */
class StaleConnection extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}
