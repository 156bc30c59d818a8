import type { Container } from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { queryFlag, queryInteger, queryString, type RequestContext, type RouteHandler } from '../context.js';
import { readJsonObject } from '../body.js';
import { checkBody } from '../validation/check-body.js';
import { containerCreateBody, containerUpdateBody, execCreateBody } from '../validation/engine-bodies.js';
import { keepBody } from '../../http/buffered-body.js';
import { capability } from '../capabilities.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { placeWithNetwork } from '../network-placement.js';
import { containerEngine, findContainer, nodeJson, registryAuth } from '../lookups.js';
import { sendJson, sendNoContent } from '../../http/responses.js';
import { splitOperation } from '../../util/split-operation.js';
import { CoreErrors } from '../../errors.js';
import { admitCreate, admitExec, admitUpdate, namingAccessLimits } from '../access-create.js';

/** POST /containers/create: placed by the cluster's scheduler. */
export async function createContainer(ctx: RequestContext): Promise<void> {
  const body = checkBody(await readJsonObject(ctx.req, ctx.api.limits.maxJsonBodyBytes), containerCreateBody);
  if (typeof body.Image !== 'string' || body.Image === '') throw CoreErrors.containerConfigEmpty();
  const name = ctx.query.get('name') ?? undefined;
  if (name !== undefined && name !== '' && !/^\/?[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) {
    throw CoreErrors.containerNameInvalid({ name });
  }
  const admitted = await admitCreate(ctx, body as ContainerConfig);
  let container: Container;
  try {
    const config = placeWithNetwork(ctx.api.cluster, admitted);
    container = await ctx.api.cluster.createContainer(config, name || undefined, registryAuth(ctx.req.headers['x-registry-auth']));
    ctx.api.metrics.observeScheduling('container', true);
  } catch (error) {
    ctx.api.metrics.observeScheduling('container', false);
    throw namingAccessLimits(ctx, error);
  }
  sendJson(ctx.res, 201, { Id: container.id, Warnings: [] });
}

/** GET /containers/{name}/json: the engine's answer plus Swarm classic's `Node` object. */
async function inspectContainer(ctx: RequestContext, container: Container): Promise<void> {
  const body = await containerEngine(ctx.api, container).json({
    path: `${ctx.versionPrefix}/containers/${encodeURIComponent(container.id)}/json${queryString(ctx.query)}`,
  });
  if (typeof body !== 'object' || body === null)
    throw CoreErrors.engineAnsweredNoObject({ node: container.node.name, what: `the inspect of ${container.name}` });
  const inspect = body as Record<string, unknown> & { NetworkSettings?: { Ports?: Record<string, Array<{ HostIp?: string }> | null> } };
  for (const bindings of Object.values(inspect.NetworkSettings?.Ports ?? {})) {
    for (const binding of bindings ?? []) if (binding.HostIp === '0.0.0.0') binding.HostIp = container.node.ip;
  }
  sendJson(ctx.res, 200, { ...inspect, Node: nodeJson(container.node) });
}

async function startContainer(ctx: RequestContext, container: Container): Promise<void> {
  await ctx.api.cluster.startContainer(container);
  sendNoContent(ctx.res);
}

/** POST /containers/{name}/restart: the driver's own restart where it has one, else the engine's. */
async function restartContainer(ctx: RequestContext, container: Container, operation: string): Promise<void> {
  const restarter = ctx.api.cluster.capabilities?.containerRestart;
  if (!restarter) return forward(ctx, container, operation);
  const t = ctx.query.get('t');
  const signal = ctx.query.get('signal');
  await restarter.restart(container, {
    ...(t !== null && t !== '' ? { timeoutSeconds: queryInteger(t) } : {}),
    ...(signal ? { signal } : {}),
  });
  sendNoContent(ctx.res);
}

async function renameContainer(ctx: RequestContext, container: Container): Promise<void> {
  const newName = ctx.query.get('name');
  if (!newName) throw CoreErrors.missingParameter({ text: 'name cannot be empty' });
  await capability(ctx.api.cluster, 'containerRename', 'rename').rename(container, newName);
  sendNoContent(ctx.res);
}

/** POST /containers/{name}/exec: forwarded, and the exec ID remembered for exec start/inspect. */
async function createExec(ctx: RequestContext, container: Container): Promise<void> {
  const engine = containerEngine(ctx.api, container);
  const request = checkBody(await readJsonObject(ctx.req, ctx.api.limits.maxJsonBodyBytes), execCreateBody);
  await admitExec(ctx, container, request);
  const body = await engine.json<{ Id?: unknown }>({
    method: 'POST',
    path: `${ctx.versionPrefix}/containers/${encodeURIComponent(container.id)}/exec`,
    body: request,
  });
  const id = body?.Id;
  if (typeof id === 'string') ctx.api.execs.remember(id, container);
  sendJson(ctx.res, 201, body);
}

/** Anything else on a container goes to its engine (attach hijacked; see forwarding/index.ts for how). */
async function forward(ctx: RequestContext, container: Container, operation: string): Promise<void> {
  const engine = containerEngine(ctx.api, container);
  const path = `${ctx.versionPrefix}/containers/${encodeURIComponent(container.id)}/${operation}${queryString(ctx.query)}`;
  await forwardToEngine(
    engine,
    path,
    { ...ctx, draining: ctx.api.draining },
    { kind: 'container', operation, tty: container.config.Tty === true },
  );
}

/**
 * POST /containers/{name}/update: forwarded once admission accepts the resources it leaves. The
 * engine gets the body as it was judged (decoded as dockerd decodes it, written anew), never the
 * client's bytes.
 */
async function updateContainer(ctx: RequestContext, container: Container, operation: string): Promise<void> {
  const update = checkBody(await readJsonObject(ctx.req, ctx.api.limits.maxJsonBodyBytes), containerUpdateBody);
  await admitUpdate(ctx, container, update);
  keepBody(ctx.req, Buffer.from(JSON.stringify(update)), update);
  await forward(ctx, container, operation);
}

type ContainerOperation = (ctx: RequestContext, container: Container, operation: string) => Promise<void>;

const OPERATIONS: Readonly<Record<string, Readonly<Record<string, ContainerOperation>>>> = {
  GET: {
    json: inspectContainer,
    top: forward,
    logs: forward,
    changes: forward,
    export: forward,
    stats: forward,
    'attach/ws': forward,
    archive: forward,
  },
  HEAD: { archive: forward },
  PUT: { archive: forward },
  POST: {
    start: startContainer,
    rename: renameContainer,
    exec: createExec,
    stop: forward,
    restart: restartContainer,
    kill: forward,
    pause: forward,
    unpause: forward,
    wait: forward,
    update: updateContainer,
    resize: forward,
    attach: forward,
    copy: forward,
  },
};

/** `/containers/{name}/{operation}` where the name may be `node/name`. */
export const containerOperation: RouteHandler = async (ctx) => {
  const method = ctx.req.method ?? 'GET';
  const operations = OPERATIONS[method] ?? {};
  const split = splitOperation(ctx.params['*'] ?? '', Object.keys(operations));
  if (!split) throw CoreErrors.pageNotFound();
  const container = findContainer(ctx, split.name);
  await operations[split.operation]!(ctx, container, split.operation);
};

/** DELETE /containers/{name}?force&v */
export const removeContainer: RouteHandler = async (ctx) => {
  const container = findContainer(ctx, ctx.params['*'] ?? '');
  await ctx.api.cluster.removeContainer(container, { force: queryFlag(ctx.query, 'force'), volumes: queryFlag(ctx.query, 'v') });
  sendNoContent(ctx.res);
};
