import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { apiError } from '../kube-api.js';
import type { PodContainer } from '../pod-container.js';
import { framedWriter } from './frames.js';

interface LogSource {
  config: k8s.KubeConfig;
  namespace: string;
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value === '1' || value === 'true';
}

/**
 * `docker logs` through `pods/log`. The kubelet keeps one stream per container, stdout and stderr
 * together, so everything arrives as stdout. `since` (docker's Unix time) becomes `sinceTime`.
 */
export async function streamLogs(
  source: LogSource,
  container: PodContainer,
  query: URLSearchParams,
  req: IncomingMessage | undefined,
  out: ServerResponse | Socket,
  upgraded = false,
): Promise<void> {
  const tty = container.config.Tty === true;
  const head = () => {
    if (!upgraded && 'writeHead' in out && !out.headersSent) {
      out.writeHead(200, { 'Content-Type': tty ? 'application/vnd.docker.raw-stream' : 'application/vnd.docker.multiplexed-stream' });
    }
  };
  const wantOutput = query.get('stdout') === null ? true : flag(query, 'stdout') || flag(query, 'stderr');
  const options: k8s.LogOptions = { follow: flag(query, 'follow'), timestamps: flag(query, 'timestamps') };
  const tail = query.get('tail');
  if (tail !== null && tail !== '' && tail !== 'all' && Number.isInteger(Number(tail))) options.tailLines = Number(tail);
  const since = Number(query.get('since') ?? 0);
  if (since > 0) options.sinceTime = new Date(since * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (!container.bound || !wantOutput || (options.tailLines === 0 && !options.follow)) {
    head();
    out.end();
    return;
  }
  // The answer's head waits for the API server's: a refused pods/log (RBAC) or a failed one is an
  // error the client sees, not an empty log. The body is held until then.
  const body = new PassThrough();
  let controller: AbortController;
  try {
    controller = await new k8s.Log(source.config).log(source.namespace, container.podName, 'container', body, options);
  } catch (error) {
    if (!upgraded)
      throw apiError(error, `read the log of pod ${container.podName}`, source.config.getCurrentCluster()?.server ?? 'the API server');
    out.end();
    return;
  }
  head();
  const sink = framedWriter(out, 1, tty);
  await new Promise<void>((resolve) => {
    const stop = () => {
      controller.abort();
      resolve();
    };
    (req ?? out).once('close', stop);
    // the client pipes the answer's body into `body`, which ends when the log does
    sink.once('finish', () => resolve());
    sink.once('error', () => resolve());
    if (out.destroyed) stop();
    body.pipe(sink);
  });
  if (!out.destroyed) out.end();
}
