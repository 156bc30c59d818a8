import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ApiContext, RequestContext } from './context.js';
import { sendError } from '../http/responses.js';
import { splitVersion, type ApiRouter } from './router.js';
import { compareApiVersions, servedApiVersions } from './api-version.js';
import { parseQuery, readRequestTarget } from './request-path.js';
import { CoreErrors } from '../errors.js';
import { checkAccess, headWithBody, identifyCaller, vouchForCaller, type AccessTrail } from './access-gate.js';
import { auditRecord } from './audit-entry.js';
import type { RequestAccess } from '../access/request-access.js';
import type { AccessControl } from '../access/access-control.js';
import type { AccessRequest } from '@swarm/plugin-sdk/access';
import { HeldAnswer, wireHeaders } from './held-answer.js';
import { closeUnswitched } from '../forwarding/index.js';

const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Origin, X-Requested-With, Content-Type, Accept, X-Registry-Auth, X-Registry-Config',
  'Access-Control-Allow-Methods': 'HEAD, GET, POST, DELETE, PUT, OPTIONS',
};

/** A versioned request is forwarded with its version, so it must be one every engine accepts. */
function checkClientVersion(versionPrefix: string, api: ApiContext): void {
  if (versionPrefix === '') return;
  const asked = versionPrefix.slice(2);
  const served = servedApiVersions(api.cluster.nodes());
  if (compareApiVersions(asked, served.max) > 0) throw CoreErrors.clientTooNew({ asked, max: served.max });
  if (compareApiVersions(asked, served.min) < 0) throw CoreErrors.clientTooOld({ asked, min: served.min });
}

// A refused body is read and dropped after the answer (closing while the client still writes makes
// its kernel reset the connection and lose our answer), up to this much and this long.
const MAX_DISCARDED_BYTES = 1024 * 1024 * 1024;
const MAX_DISCARD_MS = 60_000;

/** Reads and drops the rest of a request body; resolves when it ended, or was cut after the limits. */
function discardBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const giveUp = () => {
      cleanup();
      req.socket?.destroy();
    };
    const timer = setTimeout(giveUp, MAX_DISCARD_MS);
    timer.unref();
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > MAX_DISCARDED_BYTES) giveUp();
    };
    const cleanup = () => {
      clearTimeout(timer);
      req.off('data', onData);
      resolve();
    };
    req.on('data', onData);
    req.once('end', cleanup);
    req.once('close', cleanup);
    req.resume();
  });
}

/**
 * Node closes the connection as soon as the answer to a `Connection: close` (or HTTP/1.0) request
 * is written, so such a body is read to its end first; on a kept-alive connection the answer goes
 * at once and the body is dropped after it.
 */
function closesAfterAnswer(req: IncomingMessage): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  return connection.includes('close') || (req.httpVersionMajor === 1 && req.httpVersionMinor === 0 && !connection.includes('keep-alive'));
}

export interface DispatcherOptions {
  cors: boolean;
}

export interface DispatcherDeps {
  readonly api: ApiContext;
  readonly router: ApiRouter;
  readonly options: DispatcherOptions;
}

/** Routes each request (plain or upgraded) to its handler, with errors, logs and metrics. */
export class Dispatcher {
  private readonly api: ApiContext;
  private readonly router: ApiRouter;
  private readonly options: DispatcherOptions;
  private inFlight = 0;
  private draining = false;
  private readonly settledWaiters = new Set<() => void>();

  constructor({ api, router, options }: DispatcherDeps) {
    this.api = api;
    this.router = router;
    this.options = options;
  }

  readonly onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    this.handle(req, res, undefined).catch((error: unknown) => this.failed(req, res, error));
  };

  /** Attach and exec start ask to upgrade: the handler gets the raw socket. */
  readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    // answered without a switch: what the client wrote behind the request is nobody's to read
    res.on('finish', () => closeUnswitched(socket));
    this.handle(req, res, { socket, head }).catch((error: unknown) => this.failed(req, res, error));
  };

  /** Requests being served now, streams included. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** From now on every answer closes its connection, so kept-alive clients move to another manager. */
  startDraining(): void {
    this.draining = true;
  }

  /** Resolves true once no request is in flight, or false after `timeoutMs` with some still going. */
  settle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (settled: boolean) => {
        clearTimeout(timer);
        this.settledWaiters.delete(onSettled);
        resolve(settled);
      };
      const onSettled = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.settledWaiters.add(onSettled);
    });
  }

  /**
   * After the handler: a held answer was judged at its end; one that streamed out is judged now,
   * without its body, and cut if denied (its head is gone).
   */
  private async reviewed(held: HeldAnswer, control: AccessControl, question: AccessRequest, res: ServerResponse): Promise<void> {
    if (held.judged) return held.settled();
    try {
      await control.review(question, held.response());
    } catch {
      res.destroy();
    }
  }

  /** Tells the authorizers that judge answers of one they cannot change (an error, a hijacked connection that ended), as dockerd does. */
  private async told(control: AccessControl, question: AccessRequest, res: ServerResponse): Promise<void> {
    await control.review(question, { statusCode: 0, headers: res.headersSent ? {} : wireHeaders(res) }).catch(() => undefined);
  }

  /** The last guard: a fault outside the handler's own error answer is logged, never fatal. */
  private failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    this.api.logger.error({ err: error, method: req.method, url: req.url }, 'api request failed outside its handler');
    if (res.headersSent || res.destroyed) res.destroy();
    else sendError(res, CoreErrors.internalRequestFault({ reason: error instanceof Error ? error.message : String(error) }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse, upgrade: RequestContext['upgrade']): Promise<void> {
    this.inFlight += 1;
    try {
      await this.serve(req, res, upgrade);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const settled of [...this.settledWaiters]) settled();
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse, upgradeAsked: RequestContext['upgrade']): Promise<void> {
    let upgrade = upgradeAsked;
    if (this.draining) res.shouldKeepAlive = false;
    const started = process.hrtime.bigint();
    const startedAt = Date.now();
    const method = req.method ?? 'GET';
    // Read now: once the client hangs up, the socket is gone.
    const remote = req.socket?.remoteAddress ?? 'unix';
    let route = 'unmatched';
    let access: RequestAccess | undefined;
    let held: HeldAnswer | undefined;
    let failure: unknown;
    const trail: AccessTrail = {};
    const control = this.api.access;
    try {
      const target = readRequestTarget(req.url ?? '/');
      if (target.kind === 'redirect') {
        route = 'redirect-to-clean-path';
        res.writeHead(301, { Location: target.location, 'Content-Length': '0' });
        res.end();
        return;
      }
      const { versionPrefix, path } = splitVersion(target.routingPath);
      if (control) trail.caller = await identifyCaller(this.api, control, req);
      const role = this.api.role;
      if (role && !role.isPrimary && trail.caller) vouchForCaller(req, trail.caller);
      const forwarding = role?.forward({ req, res, path, upgrade });
      if (forwarding) {
        // The primary checks and audits it.
        route = 'forwarded-to-primary';
        await forwarding;
        return;
      }
      if (this.options.cors) for (const [name, value] of Object.entries(CORS_HEADERS)) res.setHeader(name, value);
      if (method === 'OPTIONS' && this.options.cors) {
        route = 'cors-preflight';
        res.writeHead(200);
        res.end();
        return;
      }
      checkClientVersion(versionPrefix, this.api);
      const match = this.router.find(method, path);
      if (!match) throw CoreErrors.pageNotFound();
      route = match.route;
      const query = parseQuery(target.rawQuery);
      if (upgrade && control?.enforcing) upgrade = { socket: upgrade.socket, head: await headWithBody(req, upgrade.socket, upgrade.head) };
      if (control && trail.caller)
        access = await checkAccess(
          this.api,
          control,
          trail.caller,
          { req, path, query, ...(upgrade ? { upgradeHead: upgrade.head } : {}) },
          trail,
        );
      const question = access?.question;
      held =
        control?.reviewsAnswers && question && !upgrade ? new HeldAnswer(res, (response) => control.review(question, response)) : undefined;
      await match.handler({ req, res, params: match.params, query, versionPrefix, upgrade, api: this.api, ...(access ? { access } : {}) });
      if (held && control && access?.question) await this.reviewed(held, control, access.question, res);
      else if (upgrade && control?.reviewsAnswers && access?.question) await this.told(control, access.question, res);
    } catch (error) {
      failure = error;
      held?.discard();
      if (control?.reviewsAnswers && access?.question) await this.told(control, access.question, res);
      if (CoreErrors.pluginFailed.is(error)) {
        const { kind, name, plugin } = error.details as { kind: string; name: string; plugin: string };
        this.api.metrics.observePluginFailure(kind, name, plugin);
      }
      if (!upgrade && !res.headersSent && closesAfterAnswer(req)) await discardBody(req);
      sendError(res, error);
      if (!upgrade) void discardBody(req);
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = upgrade && !res.headersSent ? 101 : res.statusCode;
      this.api.metrics.observeRequest(method, route, status, seconds);
      this.api.logger.debug({ method, url: req.url, route, status, ms: Math.round(seconds * 1000), remote }, 'api request');
      if (this.api.audit && route !== 'forwarded-to-primary') {
        this.api.audit.record(auditRecord({ req, method, remote, startedAt, seconds, status, trail, access, failure }));
      }
    }
  }
}
