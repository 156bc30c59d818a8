// The HTTPS API server: authentication, authorization, discovery, OpenAPI, and the resource
// verbs routed to the registry, watches, pod subresources and metrics.k8s.io.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import type { Json, JsonObject } from '../model/decode.js';
import { selectableFields, storeName, findResource, type ResourceDef } from '../model/resources.js';
import { asJson, type Store, type KObject } from '../store/store.js';
import { type Authenticator, type Authorizer, type UserInfo } from './auth.js';
import { apiGroup, apiGroupList, apiVersions, resourceList, servedResources, versionInfo } from './discovery.js';
import { readObject, parseYaml } from './bodies.js';
import { negotiate, parseJsonBody, readBody, sendJson, sendStatus, sendText } from './http-io.js';
import { openApiDocument, openApiIndex } from './openapi.js';
import { PodSubresources } from './pod-subresources.js';
import type { NodeAgents } from './node-agents.js';
import { type Registry, type DeleteOptions, type PatchType, type WriteOptions } from './registry.js';
import { authorizationInfo, requestInfo, type RequestInfo, type ResourceRequest } from './request-info.js';
import { ApiError, errors } from './status.js';
import { toTable, type IncludeObject } from './tables.js';
import { HttpWatch } from './watch.js';
import { MetricsApi, type MetricsMode } from './metrics.js';

export interface ApiServerOptions {
  host: string;
  port: number;
  tls: { key: string; cert: string; ca: string };
  store: Store;
  registry: Registry;
  authenticator: Authenticator;
  authorizer: Authorizer;
  agents: NodeAgents;
  metricsMode: () => MetricsMode;
  bookmarkIntervalMs: number;
}

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};
const bool = (value: string | null): boolean => value !== null && ['true', '1', 'True', 'TRUE', 't'].includes(value);
const intParam = (query: URLSearchParams, name: string): number | undefined => {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value))
    throw errors.badRequest(`${name}: Invalid value: "${value}": strconv.ParseInt: parsing "${value}": invalid syntax`);
  return Number(value);
};

export class ApiServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  readonly watches = new Set<HttpWatch>();
  private readonly websockets = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => PodSubresources.protocolFor(offered) ?? false,
  });
  private readonly pods: PodSubresources;
  private readonly metrics: MetricsApi;
  address = '';
  private boundPort: number | undefined;

  constructor(private readonly options: ApiServerOptions) {
    this.pods = new PodSubresources(options.registry, options.agents);
    this.metrics = new MetricsApi(options.store, options.agents);
  }

  async start(): Promise<void> {
    const { tls } = this.options;
    const server = createServer(
      { key: tls.key, cert: tls.cert, ca: tls.ca, requestCert: true, rejectUnauthorized: false },
      (request, response) => {
        void this.handle(request, response);
      },
    );
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => void this.upgrade(request, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // a restart (reconnect) listens on the port the first start got
      server.listen(this.boundPort ?? this.options.port, this.options.host, () => resolve());
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    this.boundPort = address.port;
    this.address = `https://${this.options.host}:${address.port}`;
  }

  /** Closes the listener and every connection (start() listens again on the same port). */
  async stop(): Promise<void> {
    for (const watch of [...this.watches]) watch.drop();
    for (const client of this.websockets.clients) client.terminate();
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  /** Cuts every watch connection (a network fault): clients must re-watch from their last resourceVersion. */
  dropWatches(): number {
    const all = [...this.watches];
    for (const watch of all) watch.drop();
    return all.length;
  }

  /** Ends every watch cleanly, as their timeout does. */
  endWatches(): number {
    const all = [...this.watches];
    for (const watch of all) watch.end();
    return all.length;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const url = new URL(request.url ?? '/', 'https://double');
      const info = requestInfo(request.method ?? 'GET', url.pathname, url.searchParams);
      const user = this.options.authenticator.authenticate(request);
      this.options.authorizer.authorize(user, authorizationInfo(info, url.searchParams));
      if (info.kind === 'nonResource') return this.nonResource(info.path, request, response);
      await this.resource(info, user, url.searchParams, request, response);
    } catch (error) {
      if (error instanceof ApiError) sendStatus(response, error.status);
      else sendStatus(response, errors.internal((error as Error).message).status);
    }
  }

  private nonResource(path: string, request: IncomingMessage, response: ServerResponse): void {
    const metricsMode = this.options.metricsMode();
    const parts = path.split('/').filter(Boolean);
    if (path === '/version' || path === '/version/') return sendJson(response, 200, versionInfo());
    if (['/healthz', '/livez', '/readyz'].includes(path)) return sendText(response, 200, 'ok');
    if (path === '/api' || path === '/api/') return sendJson(response, 200, apiVersions(request.headers.host ?? ''));
    if (path === '/apis' || path === '/apis/') return sendJson(response, 200, apiGroupList(metricsMode !== 'absent'));
    if (parts[0] === 'api' && parts.length === 2) {
      const list = resourceList('', parts[1]!, false);
      if (list) return sendJson(response, 200, list);
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const group = apiGroup(parts[1]!, metricsMode !== 'absent');
      if (group) return sendJson(response, 200, group);
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      if (parts[1] === 'metrics.k8s.io' && metricsMode === 'unavailable')
        throw errors.serviceUnavailable('the server is currently unable to handle the request');
      const list = resourceList(parts[1]!, parts[2]!, metricsMode === 'served');
      if (list) return sendJson(response, 200, list);
    }
    if (path === '/openapi/v3' || path === '/openapi/v3/')
      return sendJson(response, 200, openApiIndex(servedResources(metricsMode === 'served')));
    if (parts[0] === 'openapi' && parts[1] === 'v3') {
      const document = openApiDocument(parts.slice(2).join('/'), servedResources(metricsMode === 'served'));
      if (document) {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, immutable', Etag: `"${document.hash}"` });
        return void response.end(document.text);
      }
    }
    throw errors.pageNotFound();
  }

  private async resource(
    info: ResourceRequest,
    user: UserInfo,
    query: URLSearchParams,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (info.group === 'metrics.k8s.io') {
      const mode = this.options.metricsMode();
      if (mode === 'absent') throw errors.pageNotFound();
      if (mode === 'unavailable') throw errors.serviceUnavailable('the server is currently unable to handle the request');
    }
    const def = findResource(info.group, info.version, info.resource);
    if (!def || (info.namespace !== undefined && !def.namespaced)) {
      if (info.resource === 'bindings' && info.group === '' && request.method === 'POST' && info.namespace)
        return this.legacyBinding(info, query, request, response);
      throw errors.pageNotFound();
    }
    if (def.metrics) return this.metrics.handle(def, info, query, response);
    if (info.subresource && !def.subresources.includes(info.subresource) && !(def.kind === 'Namespace' && info.subresource === 'finalize'))
      throw errors.pageNotFound();
    if (info.subresource && ['log', 'exec', 'attach', 'binding', 'eviction'].includes(info.subresource)) {
      return this.pods.handle(def, info, query, request, response);
    }
    if (!def.verbs.includes(info.verb) && !(info.subresource && ['get', 'update', 'patch'].includes(info.verb))) {
      throw errors.methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
    }
    if (def.virtual) return this.review(def, user, request, response);
    const representation = negotiate(request.headers.accept);
    const write: WriteOptions = { dryRun: query.get('dryRun') === 'All', warnings: [] };
    const validation = query.get('fieldValidation');
    if (validation) {
      if (!['Strict', 'Warn', 'Ignore'].includes(validation)) {
        throw errors.badRequest(`fieldValidation: Unsupported value: "${validation}": supported values: "Ignore", "Strict", "Warn"`);
      }
      write.fieldValidation = validation as WriteOptions['fieldValidation'];
    }
    if (query.get('dryRun') !== null && query.get('dryRun') !== 'All')
      throw errors.badRequest(`dryRun: Unsupported value: "${query.get('dryRun')}": supported values: "All"`);
    const { registry } = this.options;
    const namespace = def.namespaced ? info.namespace : undefined;
    const single = (object: KObject, code = 200) => this.sendObject(def, object, representation, query, response, code, write.warnings);
    const subresource = info.subresource === 'finalize' ? 'status' : info.subresource;
    switch (info.verb) {
      case 'get':
        return single(registry.get(def, namespace, info.name!));
      case 'list':
        return this.list(def, namespace, query, representation, response);
      case 'watch':
        return this.watch(def, namespace, info.name, query, representation, response);
      case 'create': {
        const object = registry.create(def, namespace, await readObject(request, def.kind), write);
        return single(object, write.dryRun ? 200 : 201);
      }
      case 'update': {
        const body = await readObject(request, def.kind);
        if (info.subresource === 'finalize') return single(this.finalizeNamespace(def, info.name!, body));
        // a PUT that creates (AllowCreateOnUpdate) answers 201, as a POST does
        const created = !registry.exists(def, namespace, info.name!);
        return single(registry.update(def, namespace, info.name!, body, write, subresource), created && !write.dryRun ? 201 : 200);
      }
      case 'patch': {
        const type = PATCH_TYPES[(request.headers['content-type'] ?? '').split(';')[0]!.trim()];
        if (!type) {
          throw errors.unsupportedMediaType(
            'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
          );
        }
        if (type === 'apply' && !query.get('fieldManager'))
          throw errors.badRequest('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
        const raw = (await readBody(request)).toString();
        const patchBody = type === 'apply' ? parseYaml(raw) : parseJsonBody(Buffer.from(raw));
        return single(registry.patch(def, namespace, info.name!, type, patchBody, write, subresource));
      }
      case 'delete': {
        const options = await this.deleteOptions(request, query);
        return single(registry.delete(def, namespace, info.name!, options));
      }
      case 'deletecollection': {
        const options = await this.deleteOptions(request, query);
        const listed = registry.list(def, namespace, {
          labelSelector: query.get('labelSelector') ?? undefined,
          fieldSelector: query.get('fieldSelector') ?? undefined,
        });
        const items = listed.items.map((item) => registry.delete(def, item.metadata.namespace, item.metadata.name, options));
        return sendJson(response, 200, {
          kind: `${def.kind}List`,
          apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
          metadata: { resourceVersion: String(this.options.store.resourceVersion) },
          items,
        });
      }
      default:
        throw errors.methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
    }
  }

  private async deleteOptions(request: IncomingMessage, query: URLSearchParams): Promise<DeleteOptions> {
    const raw = await readBody(request);
    const options: DeleteOptions = {};
    if (raw.length > 0 && raw.toString().trim()) {
      const body = parseJsonBody(raw) as Record<string, Json>;
      if (typeof body.gracePeriodSeconds === 'number') options.gracePeriodSeconds = body.gracePeriodSeconds;
      if (typeof body.propagationPolicy === 'string') options.propagationPolicy = body.propagationPolicy;
      if (Array.isArray(body.dryRun) && body.dryRun.includes('All')) options.dryRun = true;
      const pre = body.preconditions as Record<string, string> | undefined;
      if (pre) options.preconditions = { uid: pre.uid, resourceVersion: pre.resourceVersion };
    }
    const grace = intParam(query, 'gracePeriodSeconds');
    if (grace !== undefined) options.gracePeriodSeconds = grace;
    if (query.get('propagationPolicy')) options.propagationPolicy = query.get('propagationPolicy')!;
    if (query.get('dryRun') === 'All') options.dryRun = true;
    return options;
  }

  private sendObject(
    def: ResourceDef,
    object: KObject,
    representation: ReturnType<typeof negotiate>,
    query: URLSearchParams,
    response: ServerResponse,
    code: number,
    warnings: readonly string[] = [],
  ): void {
    if (representation.table) {
      const include = (query.get('includeObject') ?? 'Metadata') as IncludeObject;
      return sendJson(
        response,
        code,
        toTable(def, [object], { resourceVersion: object.metadata.resourceVersion ?? '' }, include),
        warnings,
      );
    }
    if (representation.metadataOnly)
      return sendJson(response, code, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata }, warnings);
    sendJson(response, code, object, warnings);
  }

  private list(
    def: ResourceDef,
    namespace: string | undefined,
    query: URLSearchParams,
    representation: ReturnType<typeof negotiate>,
    response: ServerResponse,
  ): void {
    const result = this.options.registry.list(def, namespace, {
      labelSelector: query.get('labelSelector') ?? undefined,
      fieldSelector: query.get('fieldSelector') ?? undefined,
      limit: intParam(query, 'limit'),
      continue: query.get('continue') ?? undefined,
      resourceVersion: query.get('resourceVersion') ?? undefined,
      resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
    });
    const metadata: JsonObject = { resourceVersion: result.resourceVersion };
    if (result.continue) metadata.continue = result.continue;
    if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
    if (representation.table) {
      return sendJson(response, 200, toTable(def, result.items, metadata, (query.get('includeObject') ?? 'Metadata') as IncludeObject));
    }
    const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
    if (representation.metadataOnly) {
      return sendJson(response, 200, {
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata,
        items: result.items.map((item) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: item.metadata })),
      });
    }
    // items of a typed list carry no kind/apiVersion of their own
    const items = result.items.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => rest);
    sendJson(response, 200, { kind: `${def.kind}List`, apiVersion, metadata, items });
  }

  private watch(
    def: ResourceDef,
    namespace: string | undefined,
    name: string | undefined,
    query: URLSearchParams,
    representation: ReturnType<typeof negotiate>,
    response: ServerResponse,
  ): void {
    const { registry, store } = this.options;
    const fieldText = [query.get('fieldSelector'), name ? `metadata.name=${name}` : undefined].filter(Boolean).join(',');
    const labels = registry.labelSelector(query.get('labelSelector') ?? undefined);
    const fields = registry.fieldSelector(def, fieldText || undefined);
    const rvText = query.get('resourceVersion') ?? '';
    if (rvText && !/^\d+$/.test(rvText))
      throw errors.badRequest(`Invalid value: "${rvText}": strconv.ParseUint: parsing "${rvText}": invalid syntax`);
    const sendInitialEvents = bool(query.get('sendInitialEvents'));
    const bookmarks = bool(query.get('allowWatchBookmarks'));
    if (sendInitialEvents && (query.get('resourceVersionMatch') !== 'NotOlderThan' || !bookmarks)) {
      throw errors.invalid('meta.k8s.io', 'ListOptions', '', [
        {
          type: 'FieldValueForbidden',
          field: 'sendInitialEvents',
          body: "Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to 'NotOlderThan' and allowWatchBookmarks is set to true",
        },
      ]);
    }
    const fromRV = rvText && rvText !== '0' ? Number(rvText) : undefined;
    if (fromRV !== undefined && fromRV > store.resourceVersion) throw errors.tooLargeResourceVersion(fromRV, store.resourceVersion);
    const include = (query.get('includeObject') ?? 'Metadata') as IncludeObject;
    const watch = new HttpWatch({
      response,
      options: {
        def,
        storeName: storeName(def),
        prefix: def.namespaced && namespace ? `${namespace}/` : undefined,
        matches: (object) => labels(object.metadata.labels) && fields(selectableFields(def, object)),
        fromRV,
        sendInitialEvents,
        bookmarks,
        bookmarkIntervalMs: this.options.bookmarkIntervalMs,
        timeoutSeconds: intParam(query, 'timeoutSeconds'),
        encode: (object) =>
          representation.table
            ? toTable(def, [object], { resourceVersion: object.metadata.resourceVersion ?? '' }, include)
            : representation.metadataOnly
              ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata as unknown as JsonObject }
              : asJson(object),
      },
      store,
      onEnd: (ended) => this.watches.delete(ended),
    });
    this.watches.add(watch);
    watch.start();
  }

  private finalizeNamespace(def: ResourceDef, name: string, body: Json): KObject {
    const { registry, store } = this.options;
    const current = registry.get(def, undefined, name);
    const finalizers = ((body as JsonObject).spec as JsonObject | undefined)?.finalizers ?? [];
    const updated = structuredClone(current);
    (updated.spec as JsonObject).finalizers = finalizers;
    if (updated.metadata.deletionTimestamp && (finalizers as Json[]).length === 0 && (updated.metadata.finalizers ?? []).length === 0) {
      return store.remove(storeName(def), name) ?? updated;
    }
    return store.put(storeName(def), updated);
  }

  /** SelfSubjectAccessReview and SelfSubjectReview: answered from the request's user, nothing stored. */
  private async review(def: ResourceDef, user: UserInfo, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = this.options.registry.decodeBody(def, await readObject(request, def.kind), {});
    const apiVersion = `${def.group}/${def.version}`;
    if (def.kind === 'SelfSubjectReview') {
      return sendJson(response, 201, {
        kind: def.kind,
        apiVersion,
        metadata: { creationTimestamp: null },
        status: { userInfo: { username: user.username, groups: user.groups } },
      });
    }
    const spec = (body.spec ?? {}) as Record<string, Record<string, string> | undefined>;
    let asked: RequestInfo;
    if (spec.resourceAttributes) {
      const attributes = spec.resourceAttributes;
      asked = {
        kind: 'resource',
        group: attributes.group ?? '',
        version: attributes.version ?? '',
        resource: attributes.resource ?? '',
        verb: attributes.verb ?? '',
      };
      if (attributes.namespace) asked.namespace = attributes.namespace;
      if (attributes.name) asked.name = attributes.name;
      if (attributes.subresource) asked.subresource = attributes.subresource;
    } else {
      asked = { kind: 'nonResource', path: spec.nonResourceAttributes?.path ?? '', verb: spec.nonResourceAttributes?.verb ?? '' };
    }
    const decision = this.options.authorizer.decide(user, asked);
    // RBAC gives no reason when nothing allows a request
    const status = decision.allowed ? { allowed: true, ...(decision.reason ? { reason: decision.reason } : {}) } : { allowed: false };
    sendJson(response, 201, { kind: def.kind, apiVersion, metadata: { creationTimestamp: null }, spec: body.spec, status });
  }

  private async legacyBinding(
    info: ResourceRequest,
    query: URLSearchParams,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const pods = findResource('', 'v1', 'pods')!;
    const body = await readObject(request, 'Binding');
    const name = ((body as JsonObject).metadata as JsonObject | undefined)?.name;
    if (typeof name !== 'string' || !name) throw errors.badRequest('name is required in the binding');
    const forward: ResourceRequest = { ...info, resource: 'pods', name, subresource: 'binding', verb: 'create' };
    return this.pods.bind(pods, forward, body, query, response);
  }

  private async upgrade(request: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const reject = (status: { code: number; message?: string }) => {
      const text = JSON.stringify(status);
      socket.end(
        `HTTP/1.1 ${status.code} ${status.code === 401 ? 'Unauthorized' : status.code === 403 ? 'Forbidden' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    };
    try {
      const url = new URL(request.url ?? '/', 'https://double');
      const info = requestInfo(request.method ?? 'GET', url.pathname, url.searchParams);
      const user = this.options.authenticator.authenticate(request);
      if (info.kind === 'resource' && (info.subresource === 'exec' || info.subresource === 'attach')) {
        // the upgrade is a GET, which RequestInfoFactory reads as `get` (all a 1.32 server checks);
        // 1.35 also checks `create` (AuthorizePodWebsocketUpgradeCreatePermission, on by default
        // there): asking for both, a Role that passes here works on either side of that change
        this.options.authorizer.authorize(user, info);
        this.options.authorizer.authorize(user, { ...info, verb: 'create' });
        if ((request.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
          throw errors.badRequest(
            `upgrade to ${request.headers.upgrade} is not supported by this API server double: exec and attach need a WebSocket client (v4/v5.channel.k8s.io)`,
          );
        }
        const prepared = this.pods.prepareStream(info, url.searchParams);
        this.websockets.handleUpgrade(request, socket, head, (ws) => prepared.run(ws));
        return;
      }
      throw errors.badRequest('this endpoint does not upgrade connections');
    } catch (error) {
      if (error instanceof ApiError) reject(error.status);
      else reject(errors.internal((error as Error).message).status);
    }
  }
}
