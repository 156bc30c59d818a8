import type { IncomingMessage } from 'node:http';
import type { Node } from '@swarm/plugin-sdk';
import { queryString, type RequestContext, type RouteHandler } from '../context.js';
import { readJsonBody } from '../body.js';
import { relayProgressFromNodes, type NodeCall } from '../progress-fan-out.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { callNodes, throwFailures } from '../fan-out.js';
import { anyHealthyEngine, nodeEngine, nodeJson, pluginNodes } from '../lookups.js';
import { findPluginCopies, pluginPath, type PluginCopy } from '../plugin-lookup.js';
import { sendJson } from '../../http/responses.js';
import { splitOperation } from '../../util/split-operation.js';
import { CoreErrors } from '../../errors.js';

/** A node's plugin as the cluster shows it: `node/name`, with Swarm classic's `Node` object. */
function clusterPlugin(node: Node, plugin: Record<string, unknown>): Record<string, unknown> {
  return { ...plugin, Name: `${node.name}/${String(plugin.Name ?? '')}`, Node: nodeJson(node) };
}

/** GET /plugins: every healthy node's plugins (filters go to each engine). */
export const listPlugins: RouteHandler = async (ctx) => {
  const answers = await callNodes(ctx.api, pluginNodes(ctx.api), 'GET', `${ctx.versionPrefix}/plugins${queryString(ctx.query)}`);
  throwFailures(answers);
  const plugins = answers.flatMap(({ node, body }) =>
    Array.isArray(body) ? body.map((plugin) => clusterPlugin(node, plugin as Record<string, unknown>)) : [],
  );
  sendJson(ctx.res, 200, plugins);
};

/** GET /plugins/privileges?remote=: read from the registry, so any healthy engine answers. */
export const pluginPrivileges: RouteHandler = async (ctx) => {
  await forwardToEngine(anyHealthyEngine(ctx.api), `${ctx.versionPrefix}/plugins/privileges${queryString(ctx.query)}`, ctx, {
    kind: 'call',
  });
};

/** POST /plugins/create: the build context would have to be copied to every engine; not done. */
export const createPlugin: RouteHandler = async () => {
  throw CoreErrors.pluginCreateNotServed();
};

async function bodyBuffer(ctx: RequestContext): Promise<Buffer | undefined> {
  const body = await readJsonBody(ctx.req, ctx.api.limits.maxJsonBodyBytes);
  return body === undefined ? undefined : Buffer.from(JSON.stringify(body));
}

function authHeaders(req: IncomingMessage): Record<string, string> {
  const auth = req.headers['x-registry-auth'];
  return { 'content-type': 'application/json', ...(typeof auth === 'string' ? { 'x-registry-auth': auth } : {}) };
}

/** A JSON-lines progress answer from several engines (plugin pull, upgrade), tagged by node. */
async function progressOnNodes(ctx: RequestContext, calls: readonly NodeCall[]): Promise<void> {
  const body = await bodyBuffer(ctx);
  const leaving = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) leaving.abort();
  });
  await relayProgressFromNodes(calls, 'POST', authHeaders(ctx.req), body, ctx.res, leaving.signal);
}

/** POST /plugins/pull: installed on every healthy node, so drivers are there wherever containers land. */
export const pullPlugin: RouteHandler = async (ctx) => {
  const nodes = pluginNodes(ctx.api);
  if (nodes.length === 0) throw CoreErrors.noHealthyNode();
  const path = `${ctx.versionPrefix}/plugins/pull${queryString(ctx.query)}`;
  await progressOnNodes(
    ctx,
    nodes.map((node) => ({ node, engine: nodeEngine(ctx.api, node), path })),
  );
};

/** The same call on every copy at once; when some fail, the others stay done and each failed node is named. */
async function onEveryCopy(
  ctx: RequestContext,
  copies: readonly PluginCopy[],
  method: 'POST' | 'DELETE',
  operation: string,
  body?: unknown,
): Promise<void> {
  const answers = await Promise.all(
    copies.map(
      async (copy) =>
        (
          await callNodes(
            ctx.api,
            [copy.node],
            method,
            `${pluginPath(ctx.versionPrefix, copy.name, operation)}${queryString(ctx.query)}`,
            body,
          )
        )[0]!,
    ),
  );
  throwFailures(answers);
  const status = answers[0]!.status;
  ctx.res.writeHead(status);
  ctx.res.end();
}

const POST_OPERATIONS = ['enable', 'disable', 'set', 'push', 'upgrade'];

/** `/plugins/{name}/json` and `POST /plugins/{name}/{operation}`, the name possibly `node/name`. */
export const pluginOperation: RouteHandler = async (ctx) => {
  const method = ctx.req.method ?? 'GET';
  const split = splitOperation(ctx.params['*'] ?? '', method === 'GET' ? ['json'] : POST_OPERATIONS);
  if (!split) throw CoreErrors.pageNotFound();
  const copies = await findPluginCopies(ctx.api, split.name, ctx.versionPrefix);
  const first = copies[0]!;
  switch (split.operation) {
    case 'json':
      return sendJson(ctx.res, 200, clusterPlugin(first.node, first.inspect));
    case 'push':
      return forwardToEngine(
        nodeEngine(ctx.api, first.node),
        `${pluginPath(ctx.versionPrefix, first.name, 'push')}${queryString(ctx.query)}`,
        ctx,
        { kind: 'call' },
      );
    case 'upgrade':
      return progressOnNodes(
        ctx,
        copies.map((copy) => ({
          node: copy.node,
          engine: nodeEngine(ctx.api, copy.node),
          path: `${pluginPath(ctx.versionPrefix, copy.name, 'upgrade')}${queryString(ctx.query)}`,
        })),
      );
    case 'set':
      return onEveryCopy(ctx, copies, 'POST', 'set', await readJsonBody(ctx.req, ctx.api.limits.maxJsonBodyBytes));
    default:
      return onEveryCopy(ctx, copies, 'POST', split.operation);
  }
};

/** DELETE /plugins/{name}?force: removed from every node holding it (or the one named). */
export const removePlugin: RouteHandler = async (ctx) => {
  const copies = await findPluginCopies(ctx.api, ctx.params['*'] ?? '', ctx.versionPrefix);
  await onEveryCopy(ctx, copies, 'DELETE', '');
};
