import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Container, Image, Network, Volume } from '@swarm/plugin-sdk';
import type { AccessObject, AccessRequest, Caller, Visibility, WireRequest } from '@swarm/plugin-sdk/access';
import type { AccessControl } from '../access/access-control.js';
import type { RequestAccess, ScopedLookup } from '../access/request-access.js';
import { seesEach, type ListVisibility } from '../plugins/list-visibility.js';
import { containerObject, imageObject, namedObject, networkObject, volumeObject } from '../access/access-objects.js';
import { visibleImage } from '../access/scoped-images.js';
import { FORWARDED_CALLER_HEADER, decodeForwardedCaller, encodeForwardedCaller } from '../access/forwarded-identity.js';
import { peerCertificates } from '../access/peer-certificates.js';
import { requestAction, type ObjectReference } from '../access/request-actions.js';
import { containerKeys, networkKeys, scopedFind, volumeKeys } from '../access/scoped-lookup.js';
import { keepBody } from '../http/buffered-body.js';
import type { ApiContext } from './context.js';
import { capability } from './capabilities.js';
import { CoreErrors } from '../errors.js';
import { ACCESS_BODIES } from './validation/engine-bodies.js';
import { isGoJsonType } from './go-media-type.js';
import { readRequestTarget } from './request-path.js';
import { splitVersion } from './router.js';
import { parseGoJson } from './validation/go-json.js';
import { decodeGo } from './validation/go-types.js';

/** dockerd sends its AuthZ plugins bodies up to this size (moby's pkg/authorization maxBodySize). */
const WIRE_BODY_LIMIT = 1024 * 1024;

// Docker's predefined networks belong to every engine, not to a team: everyone sees them.
const SHARED_NETWORKS = new Set(['bridge', 'host', 'none', 'docker_gwbridge', 'ingress']);

function shared(object: AccessObject): boolean {
  return object.kind === 'network' && object.name !== undefined && SHARED_NETWORKS.has(object.name);
}

/** The caller's view with what belongs to nobody in it. */
function withShared(visibility: ListVisibility | undefined): ListVisibility | undefined {
  return (
    visibility && {
      sees: (object) => shared(object) || visibility.sees(object),
      seesEach: (objects) => {
        const asked = objects.filter((object) => !shared(object));
        const answers = seesEach(visibility, asked);
        let next = 0;
        return objects.map((object) => shared(object) || answers[next++] === true);
      },
    }
  );
}

function isJsonType(type: string | undefined): boolean {
  return type !== undefined && /^application\/json\b/i.test(type);
}

/**
 * Routes whose handler dockerd starts with httputils.CheckForJSON (routing path, version prefix
 * stripped): a body whose Content-Type is not JSON by Go's rules is refused with 400 there. Its
 * AuthZ plugins never saw such a body (they get JSON bodies only), so neither may the engine here.
 * Exec start checks only past API 1.21.
 */
const JSON_ROUTES: ReadonlyArray<{ readonly path: RegExp; readonly after?: number }> = [
  { path: /^\/containers\/create$/ },
  { path: /^\/containers\/.+\/(update|exec)$/ },
  { path: /^\/commit$/ },
  { path: /^\/exec\/.+\/start$/, after: 1.21 },
  { path: /^\/networks\/create$/ },
  { path: /^\/networks\/.+\/(connect|disconnect)$/ },
  { path: /^\/volumes\/create$/ },
];

function checksForJson(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const target = readRequestTarget(req.url ?? '/');
  if (target.kind !== 'route') return false;
  const { versionPrefix, path } = splitVersion(target.routingPath);
  const version = versionPrefix === '' ? Infinity : Number(versionPrefix.slice(2));
  return JSON_ROUTES.some((route) => route.path.test(path) && (route.after === undefined || version > route.after));
}

/**
 * How dockerd (Go's net/http) frames a request's body: `chunked` is the only transfer coding it
 * takes (any other is refused with 501 before a handler or plugin sees the request), and below
 * HTTP/1.1 it ignores Transfer-Encoding, so such a request's body is empty to it.
 */
function bodyFraming(req: IncomingMessage): 'chunked' | 'length' | 'ignored' {
  const coding = req.headers['transfer-encoding'];
  if (coding === undefined) return 'length';
  if (req.httpVersionMajor < 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor < 1)) return 'ignored';
  if (coding.trim().toLowerCase() !== 'chunked') throw CoreErrors.unsupportedTransferEncoding();
  return 'chunked';
}

async function readWhole(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw CoreErrors.bodyTooLarge({ size: `more than ${limit}`, limit });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The body authorizers get, read as dockerd reads it before its AuthZ middleware: `wire` is a body
 * whose Content-Type is JSON by Go's rules, whatever its framing (chunked too), which a wire-protocol
 * authorizer sends on under its own size rule (a Docker AuthZ plugin: at most 1 MiB, larger ones
 * refused); `raw` is a create or update body, read whole up to the API's limit, since authorizers
 * judge what it asks for. What is read is kept, so the handler and the engine get exactly those
 * bytes. A JSON route's body of another type is refused as dockerd refuses it, and a body dockerd
 * would not read (HTTP/1.0 chunked) reaches nobody.
 */
async function readBodyForAccess(req: IncomingMessage, whole: boolean, limit: number): Promise<{ raw?: Buffer; wire?: Buffer }> {
  const framing = bodyFraming(req);
  if (framing === 'ignored') {
    for await (const _ of req as AsyncIterable<Buffer>) void _;
    keepBody(req, Buffer.alloc(0));
    return {};
  }
  const type = req.headers['content-type'];
  const declared = Number(req.headers['content-length'] ?? '0');
  const hasBody = framing === 'chunked' || declared > 0;
  const json = isGoJsonType(type);
  if (checksForJson(req) && !json && (hasBody || (type ?? '') !== '')) throw CoreErrors.bodyNotJsonType({ type: type ?? '' });
  if (!hasBody || (!json && !whole)) return {};
  if (declared > limit) throw CoreErrors.bodyTooLarge({ size: String(declared), limit });
  const raw = await readWhole(req, limit);
  keepBody(req, raw);
  return { raw, ...(json ? { wire: raw } : {}) };
}

/**
 * The request's headers as Go keeps them, every value of a repeated name in order (Go's plugins
 * get the last one, Go's Header.Get reads the first; Node.js joins or drops repeats), less those
 * the manager took out (a replica's vouching header).
 */
function wireHeaders(req: IncomingMessage): Record<string, string[]> {
  return Object.fromEntries(Object.entries(req.headersDistinct).filter(([name]) => name in req.headers)) as Record<string, string[]>;
}

const HEAD_WAIT_MS = 5_000;

/**
 * An upgraded request's first bytes with its small JSON body whole (an exec start's
 * `{"Detach":false,"Tty":false}` may come a packet after the head): read from the socket, which is
 * paused again at once so nothing is lost before the handler joins it to the engine. dockerd
 * reads that body before it hijacks the connection; so must access control, to show it to
 * authorizers.
 */
export async function headWithBody(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<Buffer> {
  if (!isJsonType(req.headers['content-type'])) return head;
  const declared = Number(req.headers['content-length'] ?? 'NaN');
  if (!Number.isFinite(declared) || declared <= 0 || declared >= WIRE_BODY_LIMIT || head.length >= declared) return head;
  const chunks = [head];
  let size = head.length;
  while (size < declared) {
    const chunk = await nextChunk(socket);
    if (!chunk) break;
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}

function nextChunk(socket: Duplex): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const done = (chunk: Buffer | undefined) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(chunk);
    };
    const onData = (chunk: Buffer) => {
      socket.pause();
      done(chunk);
    };
    const onClose = () => done(undefined);
    const timer = setTimeout(() => done(undefined), HEAD_WAIT_MS);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.resume();
  });
}

/** The JSON body that arrived with an upgraded request's head, when all of it did. */
function bodyInHead(req: IncomingMessage, head: Buffer): Buffer | undefined {
  if (!isJsonType(req.headers['content-type'])) return undefined;
  const declared = Number(req.headers['content-length'] ?? 'NaN');
  if (!Number.isFinite(declared) || declared <= 0 || declared >= WIRE_BODY_LIMIT || head.length < declared) return undefined;
  return Buffer.from(head.subarray(0, declared));
}

/**
 * A body as authorizers judge it: decoded as the engine's decoder reads the client's bytes (fields
 * under their own names, repeated keys, create's top-level HostConfig fields moved in), which is
 * the form the handler sends the engine.
 */
export function judgedBody(action: string, raw: Buffer | undefined): unknown {
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = parseGoJson(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  const type = ACCESS_BODIES[action];
  return type ? decodeGo(type, parsed).value : parsed;
}

/** The caller: a replica in the managers group may vouch for the one it forwards; nobody else can. */
export async function identifyCaller(api: ApiContext, access: AccessControl, req: IncomingMessage): Promise<Caller> {
  const forwarded = req.headers[FORWARDED_CALLER_HEADER];
  // Never passed on to an engine, believed or not.
  delete req.headers[FORWARDED_CALLER_HEADER];
  const certificates = peerCertificates(req.socket);
  const direct = await access.authenticate({
    method: req.method ?? 'GET',
    uri: req.url ?? '/',
    headers: req.headers,
    peerCertificates: certificates,
    remoteAddress: req.socket?.remoteAddress ?? 'unix',
  });
  const managers = api.managersGroup;
  if (forwarded !== undefined && managers !== undefined && direct.groups.includes(managers)) {
    return decodeForwardedCaller(forwarded) ?? direct;
  }
  return direct;
}

/**
 * On a replica: the caller, authenticated here, rides along to the primary, which believes it
 * because this manager's certificate is in the managers group. Whatever the client put in that
 * header was dropped when the caller was identified.
 */
export function vouchForCaller(req: IncomingMessage, caller: Caller): void {
  req.headers[FORWARDED_CALLER_HEADER] = encodeForwardedCaller(caller);
}

/** What is known of a request's access so far, filled in as it is checked: what the audit log records even of a refusal. */
export interface AccessTrail {
  caller?: Caller;
  action?: string;
  object?: AccessObject;
}

/** Finds the object a request names among those the caller may see. */
export class ScopedLookups implements ScopedLookup {
  constructor(
    private readonly api: ApiContext,
    private readonly visibility: Visibility | undefined,
  ) {}

  container(reference: string): Container | undefined {
    const cluster = this.api.cluster;
    if (!this.visibility) return cluster.container(reference);
    const view = this.visibility;
    const sees = (container: Container) => view.sees(containerObject(container));
    return scopedFind(
      reference,
      (ref) => cluster.container(ref),
      () => cluster.containers().filter(sees),
      sees,
      containerKeys.idOf,
      containerKeys.namesOf,
    );
  }

  network(reference: string): Network | undefined {
    const networks = capability(this.api.cluster, 'networks', 'network lookup');
    if (!this.visibility) return networks.find(reference);
    const view = this.visibility;
    const sees = (network: Network) => view.sees(networkObject(network));
    return scopedFind(
      reference,
      (ref) => networks.find(ref),
      () => networks.list().filter(sees),
      sees,
      networkKeys.idOf,
      networkKeys.namesOf,
    );
  }

  volume(reference: string): Volume | undefined {
    const volumes = capability(this.api.cluster, 'volumes', 'volume lookup');
    if (!this.visibility) return volumes.find(reference);
    const view = this.visibility;
    const sees = (volume: Volume) => view.sees(volumeObject(volume));
    return scopedFind(
      reference,
      (ref) => volumes.find(ref),
      () => volumes.list().filter(sees),
      sees,
      volumeKeys.idOf,
      volumeKeys.namesOf,
    );
  }

  image(reference: string): Image | undefined {
    const images = capability(this.api.cluster, 'images', 'image lookup');
    if (!this.visibility) return images.find(reference);
    const view = this.visibility;
    return visibleImage(this.api.cluster.nodes(), reference, (object) => view.sees(object));
  }
}

async function targetObject(
  api: ApiContext,
  lookups: ScopedLookups,
  target: ObjectReference | undefined,
): Promise<AccessObject | undefined> {
  if (!target) return undefined;
  switch (target.kind) {
    case 'container': {
      const container = lookups.container(target.reference);
      return container ? containerObject(container) : undefined;
    }
    case 'exec': {
      const owner = await api.execs.container(target.reference, api.cluster.nodes());
      const container = owner === undefined ? undefined : lookups.container(owner);
      return container ? { ...containerObject(container), kind: 'exec', id: target.reference, name: container.name } : undefined;
    }
    case 'network': {
      if (!api.cluster.capabilities?.networks) return undefined;
      const network = lookups.network(target.reference);
      return network ? networkObject(network) : undefined;
    }
    case 'volume': {
      if (!api.cluster.capabilities?.volumes) return undefined;
      const volume = lookups.volume(target.reference);
      return volume ? volumeObject(volume) : undefined;
    }
    case 'image': {
      if (!api.cluster.capabilities?.images) return namedObject(target.kind, target.reference);
      const image = lookups.image(target.reference);
      return image ? imageObject(image) : undefined;
    }
    default:
      return namedObject(target.kind, target.reference);
  }
}

/**
 * Access control for one request, before its handler: who calls, what they ask, whether every
 * authorizer allows it. Throws the refusal (401, 403); an object the caller may not see is left
 * out, so the handler answers the same 404 as for one that does not exist.
 */
export async function checkAccess(
  api: ApiContext,
  access: AccessControl,
  caller: Caller,
  request: { req: IncomingMessage; path: string; query: URLSearchParams; upgradeHead?: Buffer },
  trail: AccessTrail,
): Promise<RequestAccess> {
  const { req, path, query, upgradeHead } = request;
  const method = req.method ?? 'GET';
  const { action, target, withBody } = requestAction(method, path, query);
  trail.action = action;
  if (!access.enforcing) {
    return { caller, action, decision: { allowed: true }, placement: [], sees: () => true, scoped: false };
  }
  const visibility = withShared(await access.visibility(caller));
  const lookups = new ScopedLookups(api, visibility);
  const object = await targetObject(api, lookups, target);
  if (object) trail.object = object;
  // An upgraded request's body is on the raw socket and goes to the engine untouched; what came
  // with the head (an exec start's `{"Detach":false}`) is shown to authorizers, as dockerd shows it.
  const { raw, wire: wireBody } = upgradeHead
    ? { raw: undefined, wire: bodyInHead(req, upgradeHead) }
    : await readBodyForAccess(req, withBody === true, api.limits.maxJsonBodyBytes);
  const wire: WireRequest = { method, uri: req.url ?? '/', headers: wireHeaders(req), peerCertificates: peerCertificates(req.socket) };
  const question: AccessRequest = {
    caller,
    action,
    ...(object ? { object } : {}),
    ...(withBody && raw ? { body: judgedBody(action, raw) } : {}),
    wire: wireBody ? { ...wire, body: wireBody } : wire,
  };
  const allowed = await access.authorize(question);
  return {
    caller,
    action,
    ...(object ? { object } : {}),
    decision: allowed.record,
    placement: allowed.placement,
    sees: visibility ? (candidate) => visibility.sees(candidate) : () => true,
    ...(visibility ? { seesEach: (objects: readonly AccessObject[]) => seesEach(visibility, objects) } : {}),
    scoped: visibility !== undefined,
    question,
    lookups,
  };
}
