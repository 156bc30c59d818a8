import type { Network, NetworkInventory } from '@swarm/plugin-sdk';
import type { NetworkCreateRequest, NetworkSummary } from '@swarm/plugin-sdk/docker';
import { queryString, type RequestContext, type RouteHandler } from '../context.js';
import { readJsonObject } from '../body.js';
import { checkBody } from '../validation/check-body.js';
import { networkAttachBody, networkCreateBody } from '../validation/engine-bodies.js';
import { capability } from '../capabilities.js';
import { checkFilterKeys, matchesAny, matchesLabels, parseFilters } from '../docker-filters.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { onEveryCopy } from '../fan-out.js';
import { findContainer, findNetwork, nodeEngine } from '../lookups.js';
import { sendJson, sendNoContent } from '../../http/responses.js';
import { splitOperation } from '../../util/split-operation.js';
import { CoreErrors } from '../../errors.js';
import { containerObject, networkObject } from '../../access/access-objects.js';
import { admitNetwork, refuseHeldNetwork, ownershipLabels } from '../access-create.js';
import { listsEngineNames, projectNetworkNode } from '../compose-project.js';

const NETWORK_FILTERS = ['name', 'id', 'driver', 'type', 'label', 'scope', 'node', 'dangling'];
const PREDEFINED = new Set(['bridge', 'host', 'none']);

/** Local networks exist once per node, so clients see them as `node/name` (Swarm classic). */
function presentedName(network: Network): string {
  return network.scope === 'local' ? `${network.node.name}/${network.name}` : network.name;
}

/** GET /networks */
export const listNetworks: RouteHandler = async (ctx) => {
  const filters = parseFilters(ctx.query.get('filters'));
  checkFilterKeys(filters, NETWORK_FILTERS);
  const seen = new Set<string>();
  const engineNames = listsEngineNames(filters);
  const out: NetworkSummary[] = [];
  const access = ctx.access;
  for (const network of capability(ctx.api.cluster, 'networks', 'network listing').list()) {
    if (access?.scoped && !access.sees(networkObject(network))) continue;
    const key = network.scope === 'local' ? `${network.node.id}/${network.id}` : network.id;
    if (seen.has(key)) continue;
    seen.add(key);
    const name = engineNames ? network.name : presentedName(network);
    const type = PREDEFINED.has(network.name) ? 'builtin' : 'custom';
    if (!matchesAny(filters, 'name', [name, network.name], true)) continue;
    if (!matchesAny(filters, 'id', [network.id], true)) continue;
    if (!matchesAny(filters, 'driver', [network.summary.Driver ?? ''])) continue;
    if (!matchesAny(filters, 'type', [type])) continue;
    if (!matchesAny(filters, 'scope', [network.scope])) continue;
    if (!matchesAny(filters, 'node', [network.node.name, network.node.id])) continue;
    if (!matchesLabels(filters, network.summary.Labels as Record<string, string> | undefined)) continue;
    out.push({ ...network.summary, Name: name });
  }
  sendJson(ctx.res, 200, out);
};

/** POST /networks/create */
export const createNetwork: RouteHandler = async (ctx) => {
  const networks = capability(ctx.api.cluster, 'networkManagement', 'network create');
  const body = checkBody(await readJsonObject(ctx.req, ctx.api.limits.maxJsonBodyBytes), networkCreateBody);
  if (typeof body.Name !== 'string' || body.Name === '') throw CoreErrors.missingParameter({ text: 'network name is required' });
  const labels = ownershipLabels(ctx, body.Labels as Record<string, string> | undefined);
  await admitNetwork(ctx, { ...(body as NetworkCreateRequest), ...(labels ? { Labels: labels } : {}) });
  refuseHeldNetwork(ctx, body.Name);
  const inventory = ctx.api.cluster.capabilities?.networks;
  const node =
    body.Name.includes('/') || !inventory
      ? undefined
      : projectNetworkNode(inventory, ctx.api.cluster.nodes(), body.Labels as Record<string, string> | undefined);
  const name = node === undefined ? body.Name : `${node}/${body.Name}`;
  const network = await networks.create({ ...(body as NetworkCreateRequest), Name: name, ...(labels ? { Labels: labels } : {}) });
  sendJson(ctx.res, 201, { Id: network.id, Warning: '' });
};

async function inspectNetwork(ctx: RequestContext, network: Network): Promise<void> {
  const access = ctx.access;
  if (access?.scoped) {
    // A network everyone sees (the bridge) lists every team's containers: only the caller's are shown.
    const path = `${ctx.versionPrefix}/networks/${encodeURIComponent(network.id)}${queryString(ctx.query)}`;
    const answer = await nodeEngine(ctx.api, network.node).json<Record<string, unknown>>({ path });
    const attached = (answer?.Containers ?? {}) as Record<string, unknown>;
    const visible = Object.fromEntries(
      Object.entries(attached).filter(([id]) => {
        const container = ctx.api.cluster.container(id);
        return container !== undefined && access.sees(containerObject(container));
      }),
    );
    sendJson(ctx.res, 200, { ...answer, Containers: visible });
    return;
  }
  await forwardToEngine(
    nodeEngine(ctx.api, network.node),
    `${ctx.versionPrefix}/networks/${encodeURIComponent(network.id)}${queryString(ctx.query)}`,
    ctx,
    { kind: 'call' },
  );
}

/** connect/disconnect: the container is named as the cluster knows it, the engine wants its ID. */
async function attachContainer(ctx: RequestContext, network: Network, operation: string): Promise<void> {
  const body = checkBody(await readJsonObject(ctx.req, ctx.api.limits.maxJsonBodyBytes), networkAttachBody);
  if (typeof body.Container !== 'string') throw CoreErrors.missingParameter({ text: 'a container name or ID is required' });
  const container = findContainer(ctx, body.Container);
  if (network.scope === 'local' && container.node.id !== network.node.id) {
    throw CoreErrors.containerOnOtherNode({
      container: body.Container,
      node: container.node.name,
      network: network.name,
      networkNode: network.node.name,
    });
  }
  await nodeEngine(ctx.api, container.node).json({
    method: 'POST',
    path: `${ctx.versionPrefix}/networks/${encodeURIComponent(network.id)}/${operation}`,
    body: { ...body, Container: container.id },
  });
  ctx.res.writeHead(200);
  ctx.res.end();
}

/** GET|DELETE /networks/{name}, POST /networks/{name}/connect|disconnect (names may be `node/name`). */
export const networkOperation: RouteHandler = async (ctx) => {
  const rest = ctx.params['*'] ?? '';
  const method = ctx.req.method ?? 'GET';
  if (method === 'POST') {
    const split = splitOperation(rest, ['connect', 'disconnect']);
    if (!split) throw CoreErrors.pageNotFound();
    return attachContainer(ctx, findNetwork(ctx, split.name), split.operation);
  }
  if (method === 'DELETE') return removeNetworks(ctx, rest);
  return inspectNetwork(ctx, findNetwork(ctx, rest));
};

/**
 * What `docker network rm` acts on (Swarm classic's rule for per-node objects): the network an ID
 * names; else every node's network of that name (one of wider scope than local, the same on
 * every node, once); else the one `node/name` or a unique ID prefix names.
 */
function networkCopies(networks: NetworkInventory, reference: string, sees: (network: Network) => boolean): Network[] {
  const all = networks.list().filter(sees);
  const byId = all.find((network) => network.id === reference);
  if (byId) return [byId];
  const byName = new Map<string, Network>();
  for (const network of all) if (network.name === reference && !byName.has(network.id)) byName.set(network.id, network);
  if (byName.size > 0) return [...byName.values()];
  const named = networks.find(reference);
  return named && sees(named) ? [named] : [];
}

/** DELETE /networks/{name}: every copy at once; when some fail, the others stay removed and each failed node is named. */
async function removeNetworks(ctx: RequestContext, reference: string): Promise<void> {
  const management = capability(ctx.api.cluster, 'networkManagement', 'network removal');
  const access = ctx.access;
  const sees = access?.scoped ? (network: Network) => access.sees(networkObject(network)) : () => true;
  const copies = networkCopies(capability(ctx.api.cluster, 'networks', 'network lookup'), reference, sees);
  if (copies.length === 0) throw CoreErrors.noSuchNetwork({ name: reference });
  await onEveryCopy(
    copies,
    (network) => network.node,
    (network) => management.remove(network),
  );
  sendNoContent(ctx.res);
}
