import { queryString, type RouteHandler } from '../context.js';
import { proxyToEngine } from '../engine/proxy.js';
import { rawStreamFromEngine } from '../engine/raw-stream.js';
import { tunnelToEngine } from '../engine/tunnel.js';
import { nodeEngine } from '../lookups.js';
import { CoreErrors } from '../../errors.js';

/** /exec/{id}/start|resize|json: forwarded to the engine that created the exec instance. */
export function execOperation(operation: 'start' | 'resize' | 'json'): RouteHandler {
  return async (ctx) => {
    const id = ctx.params.id ?? '';
    const node = await ctx.api.execs.find(id, ctx.api.cluster.nodes());
    if (!node) throw CoreErrors.noSuchExec({ id });
    const endpoint = nodeEngine(ctx.api, node);
    const path = `${ctx.versionPrefix}/exec/${encodeURIComponent(id)}/${operation}${queryString(ctx.query)}`;
    if (ctx.upgrade) await tunnelToEngine(endpoint, path, ctx.req, ctx.upgrade.socket, ctx.upgrade.head);
    else if (operation === 'start') await rawStreamFromEngine(endpoint, path, ctx.req, ctx.res);
    else await proxyToEngine(endpoint, path, ctx.req, ctx.res);
  };
}
