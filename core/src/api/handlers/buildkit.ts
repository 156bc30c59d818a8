import { randomUUID } from 'node:crypto';
import type { ClientHttp2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { isSwarmError, type Node } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import type { RequestContext, RouteHandler } from '../context.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { dialEngineGrpc, relayGrpcCall, relaySession, serveH2c } from '../../forwarding/h2c-tunnel.js';
import { sessionAnswerJudge } from '../buildkit/session-dockerfile.js';
import { answerGrpcError, GrpcMessageError, GrpcStatus, readWhole, unaryMessage } from '../../forwarding/grpc-messages.js';
import { readUpgradeBody } from '../../forwarding/upgrade-body.js';
import { capability } from '../capabilities.js';
import { healthyNodes, nodeEngine } from '../lookups.js';
import { buildkitBuildsOf, type BuildKitBinding } from '../buildkit/builds.js';
import { readSolveRequest, readStatusRef, solvePlacementConfig } from '../buildkit/solve-request.js';
import { ProtobufError, readFields, stringMap } from '../buildkit/protobuf-fields.js';
import {
  controlSolveQuestion,
  gatewaySolveQuestion,
  resolveImageQuestion,
  resolveSourceQuestion,
  type BuildKitQuestion,
} from '../buildkit/question.js';
import { admitBuildKit, refuseTakenNames } from '../buildkit/admission.js';
import { engineControlSolve, engineGatewaySolve, engineReturn } from '../buildkit/engine-messages.js';
import { decisionOf } from '../audit-entry.js';
import { auditTime } from '../../access/audit-log.js';
import { CoreErrors } from '../../errors.js';

/*
 * BuildKit through the manager. With the buildx plugin, `docker build`, `docker buildx build` and
 * `docker compose build` talk to the engine's own BuildKit over two kinds of hijacked connections:
 * `/grpc` (HTTP/2: the control API, `moby.buildkit.v1.Control/*`, and the frontend's
 * `moby.buildkit.v1.frontend.LLBBridge/*`) and `/session` (HTTP/2 the other way round: the engine
 * calls the client for its files and credentials). A build's connections must all reach one engine.
 *
 * The manager is the client's HTTP/2 peer on `/grpc`, so every call goes to the engine its build
 * is on: `Solve` is read (its session, reference, build args and sources) and placed as a classic
 * build is; `Status` (the reference) and the frontend's calls (`buildkit-controlapi-buildid`) follow
 * it; calls of no build (ListWorkers for `docker buildx ls`, DiskUsage, ...) go to one engine, the
 * first healthy one by name. `/session` (`X-Docker-Expose-Session-Uuid`) goes to the engine of the
 * build naming it.
 *
 * Under access control each call is judged (read by buildkit/question.ts, admitted by
 * buildkit/admission.ts, rewritten by buildkit/engine-messages.ts) and audited on its own (its
 * line's path is `/grpc/<method>`): a build's `Solve` and its frontend's `Solve` as a classic
 * build is, the image's config given the owner labels, calls that cannot be judged refused. A refusal is the
 * call's gRPC error (PERMISSION_DENIED and the refusal's text), and the call reaches no engine.
 */

/** How long `/session` waits for the build that names its session before it takes the default engine. */
const SESSION_WAIT_MS = 10_000;
/** How long a build's Status or frontend call waits for its Solve. */
const REF_WAIT_MS = 60_000;

const SOLVE = '/moby.buildkit.v1.Control/Solve';
const STATUS = '/moby.buildkit.v1.Control/Status';
const CONTROL_SESSION = '/moby.buildkit.v1.Control/Session';
const FRONTEND = '/moby.buildkit.v1.frontend.';
const BRIDGE = '/moby.buildkit.v1.frontend.LLBBridge/';
/**
 * The calls served under access control, each judged where it asks the engine for something:
 * builds, their progress and their frontend's calls, the workers. Not the build cache's or the
 * build history's (every team's builds), the session over `/grpc` (its files are judged on
 * `/session`), nor a frontend's interactive containers (`buildx debug`).
 */
const SERVED_UNDER_ACCESS = new Set([
  SOLVE,
  STATUS,
  '/moby.buildkit.v1.Control/ListWorkers',
  '/moby.buildkit.v1.Control/Info',
  ...[
    'Solve',
    'Return',
    'Inputs',
    'ReadFile',
    'ReadDir',
    'StatFile',
    'Evaluate',
    'Ping',
    'Warn',
    'ResolveImageConfig',
    'ResolveSourceMeta',
  ].map((method) => `${BRIDGE}${method}`),
]);

const SESSION_HEADER = 'x-docker-expose-session-uuid';
const BUILD_ID_METADATA = 'buildkit-controlapi-buildid';

function judged(ctx: RequestContext): boolean {
  return ctx.access !== undefined && ctx.api.access?.enforcing === true;
}

function callerOf(ctx: RequestContext): string | undefined {
  return judged(ctx) ? ctx.access?.caller.user : undefined;
}

/**
 * Under access control: one audit line per BuildKit call, as for a request, its path
 * `/grpc/<method>` (a call on `/grpc`) or `/session/<method>` (a refused one on `/session`).
 */
function auditCall(ctx: RequestContext, path: string, started: number, failure?: unknown): void {
  const caller = ctx.access?.caller;
  const audit = ctx.api.audit;
  if (!audit || !caller || !judged(ctx)) return;
  audit.record({
    time: auditTime(started),
    requestId: randomUUID(),
    user: caller.user,
    ...(caller.uid ? { uid: caller.uid } : {}),
    groups: caller.groups,
    authMethod: caller.method,
    sourceAddress: ctx.req.socket?.remoteAddress ?? '',
    method: 'POST',
    path: `${ctx.versionPrefix}${path}`,
    action: 'image.build',
    // a call the manager does not serve under access control is refused by the manager itself
    decision: CoreErrors.buildkitNotJudged.is(failure)
      ? { allowed: false, plugin: 'swarm', reason: failure.message }
      : decisionOf(ctx.access, failure),
    status: failure === undefined ? 200 : isSwarmError(failure) ? failure.httpStatus : 500,
    durationMs: Date.now() - started,
  });
}

/** The node for a build of `config`: the scheduler's choice, as for a classic build. */
export async function placeBuild(ctx: RequestContext, config: ContainerConfig): Promise<Node> {
  try {
    const node = await capability(ctx.api.cluster, 'builds', 'image build').place(config);
    ctx.api.metrics.observeScheduling('build', true);
    return node;
  } catch (error) {
    ctx.api.metrics.observeScheduling('build', false);
    throw error;
  }
}

/** A build finished on `node`: the node's images are read again, so a `docker run` of the new image is placed there. */
export function recordBuilt(ctx: RequestContext, node: Node): void {
  void ctx.api.cluster.capabilities?.builds?.built?.(node).catch((error: unknown) => {
    ctx.api.logger.warn({ err: error, node: node.name }, 'reading the images of a node after a build failed');
  });
}

/** Calls of no build go to one engine, the same while it is healthy: the first healthy one by name. */
function defaultNode(ctx: RequestContext): Node {
  const node = [...healthyNodes(ctx.api)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];
  if (!node) throw CoreErrors.noHealthyNode();
  return node;
}

/** The binding of a build on `node` for this request's caller. */
export function bindingFor(ctx: RequestContext, node: Node): BuildKitBinding {
  const caller = callerOf(ctx);
  return caller === undefined ? { node } : { node, caller };
}

/** A binding made by another caller is answered as one that does not exist. */
function ownBinding(ctx: RequestContext, binding: BuildKitBinding | undefined): BuildKitBinding | undefined {
  return binding && binding.caller === callerOf(ctx) ? binding : undefined;
}

function upgradeOf(ctx: RequestContext): NonNullable<RequestContext['upgrade']> {
  if (!ctx.upgrade) {
    throw CoreErrors.invalidParameter({
      name: 'Upgrade',
      reason: `${ctx.req.url ?? ''} switches the connection to HTTP/2: send Connection: Upgrade and Upgrade: h2c`,
    });
  }
  return ctx.upgrade;
}

/** POST /session: the build's session, to the engine of the build that names it (tunnelled; relayed call by call and judged under access control). */
export const session: RouteHandler = async (ctx) => {
  upgradeOf(ctx);
  const id = String(ctx.req.headers[SESSION_HEADER] ?? '');
  if (id === '') throw CoreErrors.invalidParameter({ name: 'X-Docker-Expose-Session-Uuid', reason: 'a BuildKit session names its ID' });
  const builds = buildkitBuildsOf(ctx.api);
  const named = await builds.sessions.wait(id, SESSION_WAIT_MS);
  // another caller's session is theirs: never taken over, nor joined
  if (named && !ownBinding(ctx, named)) {
    throw CoreErrors.buildkitNotJudged({ what: "a session another caller's build names", instead: 'start a session of your own' });
  }
  let binding = named;
  if (!binding) {
    binding = bindingFor(ctx, defaultNode(ctx));
    builds.sessions.set(id, binding);
  }
  ctx.api.logger.debug({ session: id, node: binding.node.name }, 'buildkit session');
  const engine = nodeEngine(ctx.api, binding.node);
  if (!judged(ctx)) {
    await forwardToEngine(engine, `${ctx.versionPrefix}/session`, ctx, { kind: 'buildkit-session' });
    return;
  }
  // under access control the Dockerfile it carries is judged: relayed call by call, not tunnelled
  const upgrade = upgradeOf(ctx);
  const { rest } = await readUpgradeBody(ctx.req, upgrade.socket, upgrade.head);
  if (upgrade.socket.destroyed) return;
  // each repeated header on its own: the engine reads every X-Docker-Expose-Session-Grpc-Method value as one method
  const headers = Object.fromEntries(
    Object.entries(ctx.req.headersDistinct).filter(([name]) => name.startsWith('x-docker-expose-session-')),
  );
  await relaySession(
    upgrade.socket,
    rest,
    engine,
    `${ctx.versionPrefix}/session`,
    headers,
    (call) => {
      const judge = sessionAnswerJudge(ctx, call, () => builds.buildArgsOf(id));
      // the engine's calls on the session are the client's answers: only a refused one is audited
      const started = Date.now();
      judge?.once('error', (error) => auditCall(ctx, `/session${String(call[':path'] ?? '')}`, started, error));
      return judge;
    },
    ctx.api.draining,
  );
};

/** POST /grpc: BuildKit's control API, each call sent to the engine of its build. */
export const grpc: RouteHandler = async (ctx) => {
  const upgrade = upgradeOf(ctx);
  const { rest } = await readUpgradeBody(ctx.req, upgrade.socket, upgrade.head);
  if (upgrade.socket.destroyed) return;
  const calls = new GrpcCalls(ctx);
  try {
    await serveH2c(upgrade.socket, rest, (stream, headers) => void calls.serve(stream, headers), ctx.api.draining);
  } finally {
    calls.close();
  }
};

function grpcStatusOf(error: unknown): number {
  if (error instanceof GrpcMessageError) return error.status;
  if (error instanceof ProtobufError) return GrpcStatus.INVALID_ARGUMENT;
  if (!isSwarmError(error)) return GrpcStatus.UNAVAILABLE;
  switch (error.httpStatus) {
    case 400:
      return GrpcStatus.INVALID_ARGUMENT;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.NOT_FOUND;
    default:
      return GrpcStatus.UNAVAILABLE;
  }
}

/** The calls of one client `/grpc` connection, and the manager's own `/grpc` connection to each engine they reach. */
class GrpcCalls {
  private readonly upstreams = new Map<Node, Promise<ClientHttp2Session>>();
  private readonly builds;

  constructor(private readonly ctx: RequestContext) {
    this.builds = buildkitBuildsOf(ctx.api);
  }

  async serve(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const path = String(headers[':path'] ?? '');
    const started = Date.now();
    try {
      if (judged(this.ctx) && !SERVED_UNDER_ACCESS.has(path)) {
        throw CoreErrors.buildkitNotJudged({ what: `call ${path}`, instead: 'it is not served under access control' });
      }
      if (path === SOLVE) await this.solve(stream, headers);
      else if (path === STATUS) {
        const body = await readWhole(stream);
        const ref = readStatusRef(unaryMessage(body, headerText(headers['grpc-encoding'])));
        await this.relay(stream, headers, await this.bound(this.builds.refs.wait(ref, REF_WAIT_MS)), body);
      } else if (path.startsWith(FRONTEND)) {
        const id = headerText(headers[BUILD_ID_METADATA]) ?? '';
        const node = await this.bound(this.builds.refs.wait(id, id === '' ? 0 : REF_WAIT_MS));
        const body = judged(this.ctx) ? await this.judgedBridgeCall(stream, headers, path) : undefined;
        await this.relay(stream, headers, node, body);
      } else if (path === CONTROL_SESSION) {
        const id = headerText(headers[SESSION_HEADER]) ?? '';
        const binding = await this.bound(this.builds.sessions.wait(id, id === '' ? 0 : SESSION_WAIT_MS));
        if (id !== '' && !this.builds.sessions.get(id)) this.builds.sessions.set(id, { node: binding });
        await this.relay(stream, headers, binding);
      } else await this.relay(stream, headers, defaultNode(this.ctx));
      this.audit(path, started);
    } catch (error) {
      this.audit(path, started, error);
      answerGrpcError(stream, grpcStatusOf(error), error instanceof Error ? error.message : String(error));
    }
  }

  private audit(path: string, started: number, failure?: unknown): void {
    auditCall(this.ctx, `/grpc${path}`, started, failure);
  }

  /** A frontend's call judged before it goes: the message the engine gets (undefined: the call streams as it came). */
  private async judgedBridgeCall(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, path: string): Promise<Buffer | undefined> {
    const method = path.slice(BRIDGE.length);
    if (!['Solve', 'Return', 'ResolveImageConfig', 'ResolveSourceMeta'].includes(method)) return undefined;
    const body = await readWhole(stream);
    const message = unaryMessage(body, headerText(headers['grpc-encoding']));
    const fields = readFields(message);
    let engine = message;
    if (method === 'Solve') {
      // the Dockerfile comes later, over the session: it is read with these build args too
      this.builds.addBuildArgs({ ref: headerText(headers[BUILD_ID_METADATA]) ?? '' }, buildArgsOf(stringMap(fields, 3)));
      await admitBuildKit(this.ctx, gatewaySolveQuestion(fields));
      engine = engineGatewaySolve(this.ctx, message);
    } else if (method === 'Return') engine = engineReturn(this.ctx, message);
    else await admitBuildKit(this.ctx, method === 'ResolveImageConfig' ? resolveImageQuestion(fields) : resolveSourceQuestion(fields));
    return engine === message ? body : framed(engine);
  }

  /** The node of a build the caller started, or the default engine (which answers as for a build it does not know). */
  private async bound(waiting: Promise<BuildKitBinding | undefined>): Promise<Node> {
    const binding = ownBinding(this.ctx, await waiting);
    // under access control only a build of the caller's own: another's is answered as one nobody started
    if (!binding && judged(this.ctx))
      throw CoreErrors.buildkitNotJudged({ what: 'a call of no build of yours', instead: 'start the build first' });
    return binding?.node ?? defaultNode(this.ctx);
  }

  private async solve(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const body = await readWhole(stream);
    const message = unaryMessage(body, headerText(headers['grpc-encoding']));
    const solve = readSolveRequest(message);
    const known = (solve.session !== '' ? this.builds.sessions.get(solve.session) : undefined) ?? this.builds.refs.get(solve.ref);
    if (known && !ownBinding(this.ctx, known)) {
      throw CoreErrors.buildkitNotJudged({
        what: "a build naming another caller's session or reference",
        instead: 'start a session of your own',
      });
    }
    let node = known?.node;
    let engine: Buffer;
    try {
      if (judged(this.ctx)) {
        this.builds.bindRef(solve.ref, solve.session);
        this.builds.addBuildArgs({ session: solve.session }, buildArgsOf(solve.frontendAttrs));
        // judged before placement, as a classic build: a refused build is not scheduled
        const asked: BuildKitQuestion = controlSolveQuestion(readFields(message));
        await admitBuildKit(this.ctx, asked);
        refuseTakenNames(this.ctx, solve.names);
      }
      engine = engineControlSolve(this.ctx, message);
      node ??= await placeBuild(this.ctx, solvePlacementConfig(solve));
    } catch (error) {
      // its Status call waits for it and fails the same way, so the client shows why; its session
      // goes on to the default engine until the client ends it: a session refused over HTTP could
      // reach the client before this call's answer and hide the explanation behind "unable to upgrade to h2c"
      if (solve.ref !== '' && error instanceof Error) this.builds.refs.fail(solve.ref, error);
      if (solve.session !== '') this.parkSession(solve.session);
      throw error;
    }
    const binding = bindingFor(this.ctx, node);
    if (solve.session !== '') this.builds.sessions.set(solve.session, binding);
    if (solve.ref !== '') this.builds.refs.set(solve.ref, binding);
    await this.relay(stream, headers, node, engine === message ? body : framed(engine), (status) => {
      if (status === '0') recordBuilt(this.ctx, node);
    });
  }

  private parkSession(id: string): void {
    try {
      const caller = callerOf(this.ctx);
      const node = defaultNode(this.ctx);
      this.builds.sessions.set(id, caller === undefined ? { node } : { node, caller });
    } catch {
      // no healthy engine: the session's own wait ends it
    }
  }

  private async relay(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    node: Node,
    body?: Buffer,
    onStatus?: (status: string | undefined) => void,
  ): Promise<void> {
    this.ctx.api.logger.debug({ call: headers[':path'], node: node.name }, 'buildkit call');
    relayGrpcCall(stream, headers, await this.upstream(node), body, onStatus);
  }

  private upstream(node: Node): Promise<ClientHttp2Session> {
    let session = this.upstreams.get(node);
    if (!session) {
      session = dialEngineGrpc(nodeEngine(this.ctx.api, node), `${this.ctx.versionPrefix}/grpc`);
      this.upstreams.set(node, session);
      session.then(
        (opened) => opened.once('close', () => this.upstreams.delete(node)),
        () => this.upstreams.delete(node),
      );
    }
    return session;
  }

  close(): void {
    for (const session of this.upstreams.values())
      session.then(
        (opened) => opened.close(),
        () => undefined,
      );
    this.upstreams.clear();
  }
}

/** The build args among a frontend's options (`build-arg:NAME`). */
function buildArgsOf(attrs: ReadonlyMap<string, string>): Record<string, string> {
  const args: Record<string, string> = {};
  for (const [key, value] of attrs) if (key.startsWith('build-arg:')) args[key.slice('build-arg:'.length)] = value;
  return args;
}

/** One uncompressed gRPC message, as the body of a unary call. */
function framed(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
