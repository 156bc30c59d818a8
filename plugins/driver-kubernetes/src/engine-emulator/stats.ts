import type { IncomingMessage, ServerResponse } from 'node:http';
import * as k8s from '@kubernetes/client-node';
import { KubernetesErrors } from '../errors.js';
import { apiError, apiStatus } from '../kube-api.js';
import type { PodContainer } from '../pod-container.js';
import { parseQuantity } from '../quantity.js';

const STREAM_INTERVAL_MS = 1000;

interface PodMetrics {
  timestamp?: string;
  containers?: Array<{ name: string; usage: { cpu?: string; memory?: string } }>;
}

/** Cumulative counters made from the metrics API's rates, so the docker CLI's deltas give its percentage. */
interface Counters {
  cpu: number;
  system: number;
  read: string;
}

/**
 * `docker stats` from metrics.k8s.io (metrics-server): the API gives a CPU rate (cores) and the
 * working-set memory, the CLI wants cumulative CPU counters, so each answer adds one second of
 * the rate to a counter, against one second of every CPU of the node: the CLI then shows
 * cores × 100 %, as docker does. A cluster without metrics gets a 501 saying what to install.
 */
export async function serveStats(
  config: k8s.KubeConfig,
  namespace: string,
  container: PodContainer,
  query: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const custom = config.makeApiClient(k8s.CustomObjectsApi);
  const read = async (): Promise<PodMetrics | undefined> => {
    if (container.state !== 'running') return undefined;
    try {
      return (await custom.getNamespacedCustomObject({
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        namespace,
        plural: 'pods',
        name: container.podName,
      })) as PodMetrics;
    } catch (error) {
      const status = apiStatus(error);
      if (status === 404) {
        if (!(await metricsServed(config))) {
          throw KubernetesErrors.notServed({
            what: 'docker stats',
            why: 'the cluster serves no metrics.k8s.io API (install metrics-server)',
          });
        }
        return undefined; // metrics-server has not scraped the pod yet
      }
      if (status === 503)
        throw KubernetesErrors.notServed({ what: 'docker stats', why: 'the metrics.k8s.io API is unavailable (metrics-server)' });
      // a refusal (RBAC: get on pods in metrics.k8s.io) or a failure is said, never shown as zeros
      throw apiError(error, `read the metrics of pod ${container.podName}`, config.getCurrentCluster()?.server ?? 'the API server');
    }
  };
  const cpus = container.node.totalCpus() || 1;
  const memoryLimit = Number(container.config.HostConfig?.Memory ?? 0) || container.node.totalMemory();
  let previous: Counters = { cpu: 0, system: 0, read: '0001-01-01T00:00:00Z' };
  const sample = async (): Promise<Record<string, unknown>> => {
    const metrics = await read();
    const usage = metrics?.containers?.find((entry) => entry.name === 'container')?.usage ?? metrics?.containers?.[0]?.usage;
    const cores = parseQuantity(usage?.cpu);
    const memory = parseQuantity(usage?.memory);
    const now: Counters = {
      cpu: previous.cpu + (Number.isFinite(cores) ? Math.round(cores * 1e9) : 0),
      system: previous.system + cpus * 1e9,
      read: new Date().toISOString(),
    };
    const answer = {
      id: container.id,
      name: `/${container.name}`,
      read: now.read,
      preread: previous.read,
      num_procs: 0,
      pids_stats: {},
      cpu_stats: {
        cpu_usage: { total_usage: now.cpu, usage_in_kernelmode: 0, usage_in_usermode: 0 },
        system_cpu_usage: now.system,
        online_cpus: cpus,
        throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
      },
      precpu_stats: {
        cpu_usage: { total_usage: previous.cpu, usage_in_kernelmode: 0, usage_in_usermode: 0 },
        system_cpu_usage: previous.system,
        online_cpus: cpus,
        throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
      },
      memory_stats: Number.isFinite(memory) ? { usage: Math.round(memory), limit: memoryLimit, stats: {} } : {},
      networks: {},
      blkio_stats: {},
    };
    previous = now;
    return answer;
  };
  const stream = !(query.get('stream') === '0' || query.get('stream') === 'false');
  // the first answer already has a "previous" second, so --no-stream shows a percentage
  previous = { cpu: 0, system: 0, read: new Date(Date.now() - STREAM_INTERVAL_MS).toISOString() };
  const first = await sample();
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write(`${JSON.stringify(first)}\n`);
  if (!stream) {
    res.end();
    return;
  }
  let open = true;
  req.once('close', () => (open = false));
  res.once('close', () => (open = false));
  while (open && !res.destroyed) {
    await new Promise((resolve) => setTimeout(resolve, STREAM_INTERVAL_MS));
    if (!open) break;
    const next = await sample().catch(() => undefined);
    if (!next) break;
    res.write(`${JSON.stringify(next)}\n`);
  }
  if (!res.destroyed) res.end();
}

async function metricsServed(config: k8s.KubeConfig): Promise<boolean> {
  try {
    const groups = await config.makeApiClient(k8s.ApisApi).getAPIVersions();
    return groups.groups.some((group) => group.name === 'metrics.k8s.io');
  } catch {
    return true;
  }
}
