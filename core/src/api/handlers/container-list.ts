import type { Container } from '@swarm/plugin-sdk';
import type { ContainerSummary } from '@swarm/plugin-sdk/docker';
import { queryFlag, type RequestContext } from '../context.js';
import { listsEngineNames } from '../compose-project.js';
import { checkFilterKeys, matchesAny, matchesLabels, parseFilters, type DockerFilters } from '../docker-filters.js';
import { findContainer, healthyNodes, nodeEngine } from '../lookups.js';
import { sendJsonArray } from '../../http/responses.js';
import { CoreErrors } from '../../errors.js';
import { containerObject } from '../../access/access-objects.js';
import { visibleItems } from '../../access/request-access.js';

const LIST_FILTERS = ['name', 'id', 'label', 'status', 'node', 'health', 'volume', 'network', 'exited', 'before', 'since', 'ancestor'];
const STATUSES = ['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead'];
const HEALTH = ['starting', 'healthy', 'unhealthy', 'none'];
const ACTIVE_STATES = new Set(['running', 'paused', 'restarting']);

interface Mount {
  Name?: string;
  Source?: string;
  Destination?: string;
}

interface Port {
  IP?: string;
  [key: string]: unknown;
}

function healthOf(summary: ContainerSummary): string {
  const status = summary.Status ?? '';
  if (status.includes('(health: starting)')) return 'starting';
  if (status.includes('(unhealthy)')) return 'unhealthy';
  if (status.includes('(healthy)')) return 'healthy';
  return 'none';
}

function exitCodeOf(summary: ContainerSummary): number | undefined {
  const match = /^Exited \((-?\d+)\)/.exec(summary.Status ?? '');
  return match ? Number(match[1]) : undefined;
}

function networksOf(summary: ContainerSummary): string[] {
  const settings = summary.NetworkSettings as { Networks?: Record<string, { NetworkID?: string }> } | undefined;
  return Object.entries(settings?.Networks ?? {}).flatMap(([name, network]) => (network.NetworkID ? [name, network.NetworkID] : [name]));
}

function checkValues(filters: DockerFilters, key: string, allowed: readonly string[]): void {
  for (const value of filters.get(key) ?? []) {
    if (!allowed.includes(value)) throw CoreErrors.unrecognisedFilterValue({ key, value });
  }
}

function createdBound(ctx: RequestContext, filters: DockerFilters, key: 'before' | 'since'): number | undefined {
  const ref = filters.get(key)?.[0] ?? ctx.query.get(key);
  if (!ref) return undefined;
  // findContainer looks among what the caller may see: another team's is missing here too.
  return findContainer(ctx, ref).summary.Created;
}

function stateOf(container: Container): string {
  return container.summary.State ?? container.state;
}

function keep(container: Container, filters: DockerFilters, all: boolean): boolean {
  const { summary } = container;
  const state = stateOf(container);
  if (!all && !ACTIVE_STATES.has(state)) return false;
  if (filters.size === 0) return true;
  const names = [container.name, `${container.node.name}/${container.name}`, ...summary.Names.map((name) => name.replace(/^\//, ''))];
  if (!matchesAny(filters, 'name', names, true)) return false;
  if (!matchesAny(filters, 'id', [container.id], true)) return false;
  if (!matchesLabels(filters, container.labels)) return false;
  if (!matchesAny(filters, 'status', [state])) return false;
  if (!matchesAny(filters, 'node', [container.node.name, container.node.id])) return false;
  if (!matchesAny(filters, 'health', [healthOf(summary)])) return false;
  if (!matchesAny(filters, 'ancestor', [container.image, container.imageId, summary.Image])) return false;
  const mounts = (summary.Mounts as Mount[] | undefined) ?? [];
  const mountKeys = mounts.flatMap((mount) => [mount.Name, mount.Source, mount.Destination]).filter((v): v is string => Boolean(v));
  if (!matchesAny(filters, 'volume', mountKeys)) return false;
  if (!matchesAny(filters, 'network', networksOf(summary))) return false;
  const exited = filters.get('exited');
  if (exited && exited.length > 0) {
    const code = exitCodeOf(summary);
    if (state !== 'exited' || code === undefined || !exited.includes(String(code))) return false;
  }
  return true;
}

/**
 * The summary a client sees: names prefixed with the node (the engine's own names for a list by
 * Compose's project label, see compose-project.ts: Compose links and names containers from them),
 * 0.0.0.0 ports shown with the node's IP.
 */
function presented(container: Container, sizes: ReadonlyMap<string, ContainerSummary>, engineNames = false): ContainerSummary {
  const { node, summary } = container;
  const ports = ((summary.Ports as Port[] | undefined) ?? []).map((port) => (port.IP === '0.0.0.0' ? { ...port, IP: node.ip } : port));
  const sized = sizes.get(container.id);
  return {
    ...summary,
    ...(sized ? { SizeRw: sized.SizeRw, SizeRootFs: sized.SizeRootFs } : {}),
    Names: engineNames ? summary.Names : summary.Names.map((name) => `/${node.name}${name.startsWith('/') ? name : `/${name}`}`),
    Labels: { ...container.labels },
    Ports: ports,
    Status: node.isHealthy() ? summary.Status : 'Host Down',
  };
}

async function fetchSizes(ctx: RequestContext): Promise<Map<string, ContainerSummary>> {
  const sizes = new Map<string, ContainerSummary>();
  await Promise.all(
    healthyNodes(ctx.api).map(async (node) => {
      // an engine that cannot answer leaves its containers without sizes, as before
      const body = await nodeEngine(ctx.api, node)
        .json({ path: '/containers/json', query: { all: 1, size: 1 } })
        .catch(() => undefined);
      if (Array.isArray(body)) for (const item of body as ContainerSummary[]) sizes.set(item.Id, item);
    }),
  );
  return sizes;
}

/** GET /containers/json: every node's containers, with Swarm classic's filters. */
export async function listContainers(ctx: RequestContext): Promise<void> {
  const filters = parseFilters(ctx.query.get('filters'));
  checkFilterKeys(filters, LIST_FILTERS);
  checkValues(filters, 'status', STATUSES);
  checkValues(filters, 'health', HEALTH);
  for (const code of filters.get('exited') ?? []) {
    if (!/^-?\d+$/.test(code)) throw CoreErrors.unknownFilter({ filter: `exited=${code}` });
  }
  const limitText = ctx.query.get('limit');
  const limit = limitText === null || limitText === '' ? -1 : Number(limitText);
  if (!Number.isInteger(limit)) throw CoreErrors.invalidParameter({ name: 'limit', reason: String(limitText) });
  const all = queryFlag(ctx.query, 'all') || limit > 0 || filters.has('status') || filters.has('exited');
  const before = createdBound(ctx, filters, 'before');
  const since = createdBound(ctx, filters, 'since');

  const access = ctx.access;
  const containers = ctx.api.cluster.containers();
  let chosen = (access ? visibleItems(access, containers, containerObject) : containers)
    .filter((container) => keep(container, filters, all || before !== undefined || since !== undefined))
    .filter((container) => before === undefined || container.summary.Created < before)
    .filter((container) => since === undefined || container.summary.Created > since)
    .sort((a, b) => b.summary.Created - a.summary.Created);
  if (limit > 0) chosen = chosen.slice(0, limit);
  if (queryFlag(ctx.query, 'size')) {
    const sizes = await fetchSizes(ctx);
    await sendJsonArray(ctx.res, chosen, (container) => JSON.stringify(presented(container, sizes)));
    return;
  }
  const unsized = new Map<string, ContainerSummary>();
  if (listsEngineNames(filters)) {
    await sendJsonArray(ctx.res, chosen, (container) => JSON.stringify(presented(container, unsized, true)));
    return;
  }
  await sendJsonArray(ctx.res, chosen, (container) => ctx.api.rowTexts.text(container, (row) => presented(row, unsized)));
}
