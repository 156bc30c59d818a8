import { invalidArgument } from './errors.js';
import { streamEvents, waitForContainer } from './event-stream.js';
import { anyValue, labelsMatch, parseFilters } from './filters.js';
import { asObject, labelsOf, type CreateBody, type HollowContainer, type Json, type JsonObject } from './model.js';
import { containerInspect, containerSummary } from './render-container.js';
import { imageInspect, imageSummary, infoAnswer, networkSummary } from './render-engine.js';
import { versionAnswer } from './templates.js';
import type { Reply, Route, RouteContext } from './route-types.js';

const truthy = (value: string | null): boolean => value === '1' || value === 'true' || value === 'True';
const param = (context: RouteContext, index = 0): string => decodeURIComponent(context.params[index] ?? '');

const CONTAINER_STATUSES = new Set(['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead']);

function listContainers({ state, query }: RouteContext): Reply {
  const filters = parseFilters(query.get('filters'));
  for (const status of filters.get('status') ?? []) {
    if (!CONTAINER_STATUSES.has(status)) throw invalidArgument(`Invalid filter 'status=${status}'`);
  }
  const all = truthy(query.get('all'));
  const limit = Number(query.get('limit') ?? -1);
  const withSize = truthy(query.get('size'));
  const nowMs = Date.now();
  const matches = (container: HollowContainer): boolean =>
    (all || container.state === 'running' || filters.has('status')) &&
    anyValue(filters, 'id', (value) => container.id.startsWith(value)) &&
    anyValue(filters, 'name', (value) => new RegExp(value).test(`/${container.name}`)) &&
    anyValue(filters, 'status', (value) => value === container.state) &&
    anyValue(filters, 'ancestor', (value) => container.body['Image'] === value || container.image.id.startsWith(value)) &&
    labelsMatch(filters, labelsOf(container.body));
  const answer: Json[] = [];
  const newestFirst = [...state.containers.values()].reverse();
  for (const container of newestFirst) {
    if (limit > 0 && answer.length >= limit) break;
    if (matches(container)) answer.push(containerSummary(container, state.networks, withSize, nowMs));
  }
  return { status: 200, body: answer };
}

function pullImage({ state, query, res }: RouteContext): undefined {
  const from = (query.get('fromImage') ?? '').replace(/^docker\.io\/(library\/)?/, '');
  const tag = query.get('tag') || 'latest';
  const reference = from.includes(':') ? from : `${from}:${tag}`;
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write(`${JSON.stringify({ status: `Pulling from ${from}`, id: tag })}\n`);
  const image = state.pull(reference);
  res.write(`${JSON.stringify({ status: `Digest: ${image.id}` })}\n`);
  res.end(`${JSON.stringify({ status: `Status: Downloaded newer image for ${reference}` })}\n`);
  return undefined;
}

function networkInspect({ state, params }: RouteContext): Reply {
  const ref = decodeURIComponent(params[0] ?? '');
  const network = state.network(ref);
  if (network === undefined) return { status: 404, body: { message: `network ${ref} not found` } };
  const attached: JsonObject = {};
  for (const container of state.containers.values()) {
    const endpoint = asObject(asObject(containerSummary(container, state.networks, false, 0)['NetworkSettings'])?.['Networks'])?.[
      network.name
    ];
    if (container.state === 'running' && endpoint !== undefined) {
      const settings = asObject(endpoint) ?? {};
      attached[container.id] = {
        Name: container.name,
        EndpointID: settings['EndpointID'] ?? '',
        MacAddress: settings['MacAddress'] ?? '',
        IPv4Address: network.subnet ? `${String(settings['IPAddress'])}/16` : '',
        IPv6Address: '',
      };
    }
  }
  return { status: 200, body: networkSummary(network, state.identity.host, attached) };
}

const ID = '([^/]+)';

export const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/_ping$/, kind: 'ping', handle: () => ({ status: 200, text: 'OK' }) },
  { method: 'HEAD', pattern: /^\/_ping$/, kind: 'ping', handle: () => ({ status: 200, text: '' }) },
  { method: 'GET', pattern: /^\/version$/, kind: 'version', handle: () => ({ status: 200, body: versionAnswer() }) },
  { method: 'GET', pattern: /^\/info$/, kind: 'info', handle: ({ state }) => ({ status: 200, body: infoAnswer(state) }) },
  { method: 'GET', pattern: /^\/events$/, handle: streamEvents },
  { method: 'GET', pattern: /^\/containers\/json$/, kind: 'list', handle: listContainers },
  {
    method: 'POST',
    pattern: /^\/containers\/create$/,
    kind: 'create',
    handle: ({ state, query, body }) => ({
      status: 201,
      body: { Id: state.create(body as CreateBody, query.get('name')).id, Warnings: [] },
    }),
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/containers/${ID}/json$`),
    kind: 'inspect',
    handle: (context) => ({
      status: 200,
      body: containerInspect(context.state.container(param(context)), context.state.networks, truthy(context.query.get('size'))),
    }),
  },
  { method: 'POST', pattern: new RegExp(`^/containers/${ID}/wait$`), handle: waitForContainer },
  {
    method: 'POST',
    pattern: new RegExp(`^/containers/${ID}/start$`),
    kind: 'start',
    handle: (context) => ({ status: context.state.start(param(context)) ? 204 : 304 }),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/containers/${ID}/stop$`),
    kind: 'stop',
    handle: (context) => ({ status: context.state.stop(param(context)) ? 204 : 304 }),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/containers/${ID}/kill$`),
    kind: 'kill',
    handle: (context) => {
      context.state.kill(param(context), context.query.get('signal'));
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/containers/${ID}$`),
    kind: 'remove',
    handle: (context) => {
      context.state.remove(param(context), truthy(context.query.get('force')));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    pattern: /^\/images\/json$/,
    kind: 'images',
    handle: ({ state }) => ({ status: 200, body: state.images.map(imageSummary) }),
  },
  { method: 'POST', pattern: /^\/images\/create$/, kind: 'images', handle: pullImage },
  {
    method: 'GET',
    pattern: /^\/images\/(.+)\/json$/,
    kind: 'images',
    handle: (context) => {
      const image = context.state.image(param(context));
      return image === undefined
        ? { status: 404, body: { message: `No such image: ${param(context)}` } }
        : { status: 200, body: imageInspect(image) };
    },
  },
  {
    method: 'GET',
    pattern: /^\/networks$/,
    kind: 'networks',
    handle: ({ state }) => ({ status: 200, body: state.networks.map((network) => networkSummary(network, state.identity.host)) }),
  },
  { method: 'GET', pattern: new RegExp(`^/networks/${ID}$`), kind: 'networks', handle: networkInspect },
  { method: 'GET', pattern: /^\/volumes$/, kind: 'volumes', handle: () => ({ status: 200, body: { Volumes: [], Warnings: null } }) },
];

export function findRoute(method: string, path: string, routes: readonly Route[] = ROUTES): { route: Route; params: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, params: match.slice(1) };
  }
  return undefined;
}

/** `GET /containers/{id}/json`, for call counts. */
export const nameOf = (route: Route): string =>
  `${route.method} ${route.pattern.source
    .replaceAll('\\/', '/')
    .replaceAll('([^/]+)', '{id}')
    .replaceAll('(.+)', '{name}')
    .replace(/^\^|\$$/g, '')}`;
