import type { RouteHandler } from '../context.js';

function sendText(res: Parameters<RouteHandler>[0]['res'], status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * GET /_swarm/healthz: the process serves requests (a liveness probe). Unlike /_ping it is not the
 * Docker API's, so orchestrators can rely on it meaning exactly this.
 */
export const healthz: RouteHandler = async (ctx) => {
  sendText(ctx.res, 200, 'ok\n');
};

/**
 * GET /_swarm/readyz: whether this manager should receive traffic (a readiness probe), one line
 * per check in kube-apiserver's style, 503 when one fails.
 */
export const readyz: RouteHandler = async (ctx) => {
  const checks = ctx.api.readiness?.() ?? [];
  const lines = checks.map((check) => (check.ok ? `[+]${check.name} ok: ${check.reason}` : `[-]${check.name} failed: ${check.reason}`));
  const ready = checks.every((check) => check.ok);
  sendText(ctx.res, ready ? 200 : 503, `${[...lines, ready ? 'readyz check passed' : 'readyz check failed'].join('\n')}\n`);
};
