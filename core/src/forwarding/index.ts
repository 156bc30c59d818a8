/**
 * Engine forwarding: how a client's request is handed to a Docker engine (or, on a replica, to the
 * primary manager) and its answer handed back. Handlers decide *which* engine; this module decides
 * *how*, in `transportFor` below, from the route and the request:
 *
 * | route                                                        | transport                     | why |
 * | ------------------------------------------------------------ | ----------------------------- | --- |
 * | `attach`, `attach/ws` and exec `start` asked with `Upgrade` (`docker attach`, `docker exec -it`) | tunnel (`tunnel.ts`) | the engine gets exactly the judged request (head and Content-Length body); only after its `101 UPGRADED` do both sides talk freely: the two connections are joined byte for byte, half-closes passed on (`docker run -i` with stdin closed still reads the output). Any other answer is relayed and the connection closed, so nothing written behind the request reaches the engine |
 * | BuildKit's `POST /session` (asked with `Upgrade: h2c`)          | tunnel (`tunnel.ts`)          | as attach: the engine gets the judged request, then the two connections carry the session's HTTP/2, in which the engine asks the client for the build's files |
 * | BuildKit's `POST /grpc`                                        | not forwarded whole: `h2c-tunnel.ts` | the manager is the client's HTTP/2 peer and passes each gRPC call to the engine of the build it belongs to (`api/handlers/buildkit.ts`) |
 * | `POST /containers/{id}/attach`, `POST /exec/{id}/start` without `Upgrade` | raw stream (`raw-stream.ts`) | the classic hijack: the engine answers a status line and the stream type, then raw bytes until the end; chunked framing would corrupt what raw readers (docker-py, dockerode) read |
 * | `GET /containers/{id}/logs`, `export`, `stats`, `archive`, and `GET /images/get`, when the request has no body | framed pipe (`framed-pipe.ts`) | big or long answers the engine frames itself (one chunk per log line): only the head is rewritten, then the engine's bytes, framing included, are copied to the client's socket (re-chunking would cost a call per line) |
 * | a replica's request for the primary                          | tunnel if upgraded, else proxy | the primary answers exactly as it would answer the client |
 * | everything else forwarded (container operations, exec resize and inspect, images, volumes, networks, build, plugins, commit, distribution) | proxy (`proxy.ts`) | an ordinary HTTP exchange: streamed both ways through Node's client, nothing buffered, and a client that leaves aborts the engine call |
 *
 * Any other route asked with `Upgrade` is refused (400): the engine would answer it as an ordinary
 * request, and its body, on the raw connection, is not what access control read.
 *
 * A stopping manager lets requests finish, but `attach`, `logs -f` and `stats` never would: those
 * end at the next point where the client's parser sees a complete stream (`stream-boundaries.ts`),
 * so the docker CLI exits as after a normal end.
 *
 * The framed pipe writes its request head by hand (`raw-http.ts`): it takes over a raw connection,
 * which Node's HTTP client would parse and re-frame. The tunnel, the proxy and the raw stream go
 * through the SDK's `EngineClient`: Node's client writes exactly the request given and parses the
 * engine's answer, which tells the tunnel whether the engine switched protocols.
 * `engine-clients.ts` keeps one `EngineClient` per engine for an API server, so forwarded requests
 * reuse kept-alive connections.
 *
 * Not here: the SDK's pipelined reads (`EngineClient.readEach`, `helpers/engine/pipelined-reads.ts`)
 * are a driver's own calls to its engines (many container inspects on one connection), not a
 * client's request passed on, and drivers are plugins, which import only the SDK.
 */
import type { EngineClient } from '@swarm/plugin-sdk/helpers';
import { hasNoBody, pipeFramedFromEngine } from './framed-pipe.js';
import { proxyToEngine } from './proxy.js';
import { rawStreamFromEngine } from './raw-stream.js';
import { tunnelToEngine } from './tunnel.js';
import { endsOnlyWhenCut } from './endless-streams.js';
import type { ForwardedRequest, ForwardedRoute } from './forwarded-request.js';
import { AfterHead, AnyBoundary, DockerFrameBoundaries } from './stream-boundaries.js';
import { CoreErrors } from '../errors.js';

export { EngineClients } from './engine-clients.js';
export { closeUnswitched } from './unswitched.js';
export type { ForwardedRequest, ForwardedRoute } from './forwarded-request.js';

export type Transport = 'tunnel' | 'raw-stream' | 'framed-pipe' | 'proxy' | 'refused';

/** Container reads whose answers can be big or long (the framed pipe's row of the table). */
const FRAMED_CONTAINER_READS = new Set(['logs', 'export', 'stats', 'archive']);

/** The container operations dockerd answers by switching protocols. */
const UPGRADING_CONTAINER_OPERATIONS = new Set(['attach', 'attach/ws']);

/** The transport for a request on `route`: the table above, as code. */
export function transportFor(route: ForwardedRoute, request: ForwardedRequest): Transport {
  const { req, upgrade } = request;
  switch (route.kind) {
    case 'container':
      if (upgrade) return UPGRADING_CONTAINER_OPERATIONS.has(route.operation) ? 'tunnel' : 'refused';
      if (route.operation === 'attach') return 'raw-stream';
      return req.method === 'GET' && FRAMED_CONTAINER_READS.has(route.operation) && hasNoBody(req) ? 'framed-pipe' : 'proxy';
    case 'exec':
      if (upgrade) return route.operation === 'start' ? 'tunnel' : 'refused';
      return route.operation === 'start' ? 'raw-stream' : 'proxy';
    case 'buildkit-session':
      return upgrade ? 'tunnel' : 'refused';
    case 'image-save':
      if (upgrade) return 'refused';
      return hasNoBody(req) ? 'framed-pipe' : 'proxy';
    case 'primary':
      return upgrade ? 'tunnel' : 'proxy';
    case 'call':
      return upgrade ? 'refused' : 'proxy';
  }
}

/** Hands `request` to `engine` at `path` (the engine's path, query included) over the route's transport. */
export function forwardToEngine(engine: EngineClient, path: string, request: ForwardedRequest, route: ForwardedRoute): Promise<void> {
  const { req, res, upgrade } = request;
  const transport = transportFor(route, request);
  const draining = request.draining && endsOnlyWhenCut(route, path) ? request.draining : undefined;
  if (transport === 'refused') {
    return Promise.reject(
      CoreErrors.invalidParameter({
        name: 'Upgrade',
        reason: `${req.method ?? 'GET'} ${req.url ?? path} does not switch protocols (only attach, exec start and BuildKit's session do): send it without Connection: Upgrade`,
      }),
    );
  }
  const attachBody = () => (route.kind === 'container' && route.tty ? new AnyBoundary() : new DockerFrameBoundaries());
  if (transport === 'tunnel' && upgrade) {
    const cut = draining && { signal: draining, boundaries: new AfterHead(attachBody()) };
    return tunnelToEngine(engine, path, { req, res, client: upgrade.socket, head: upgrade.head }, cut);
  }
  if (transport === 'raw-stream')
    return rawStreamFromEngine(engine, path, req, res, draining && { signal: draining, boundaries: attachBody() });
  if (transport === 'framed-pipe') return pipeFramedFromEngine(engine, path, req, res, draining);
  return proxyToEngine(engine, path, req, res);
}
