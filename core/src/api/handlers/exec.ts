import { queryString, type RouteHandler } from '../context.js';
import { forwardToEngine } from '../../forwarding/index.js';
import { nodeEngine } from '../lookups.js';
import { CoreErrors } from '../../errors.js';

/** /exec/{id}/start|resize|json: forwarded to the engine that created the exec instance. */
export function execOperation(operation: 'start' | 'resize' | 'json'): RouteHandler {
  return async (ctx) => {
    const id = ctx.params.id ?? '';
    // An exec in a container the caller may not see does not exist for them.
    if (ctx.access?.scoped && !ctx.access.object) throw CoreErrors.noSuchExec({ id });
    const node = await ctx.api.execs.find(id, ctx.api.cluster.nodes());
    if (!node) throw CoreErrors.noSuchExec({ id });
    const endpoint = nodeEngine(ctx.api, node);
    const path = `${ctx.versionPrefix}/exec/${encodeURIComponent(id)}/${operation}${queryString(ctx.query)}`;
    await forwardToEngine(endpoint, path, ctx, { kind: 'exec', operation });
  };
}
