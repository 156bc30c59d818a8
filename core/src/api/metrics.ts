import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Cluster, NodeStatus } from '@swarm/plugin-sdk';

const NODE_STATUSES: readonly NodeStatus[] = ['pending', 'healthy', 'unhealthy', 'disconnected'];

/** The Prometheus metrics of one API server (own registry: two deployments in a process never mix). */
export class ApiMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly decisions: Counter<'kind' | 'result'>;
  private readonly pluginFailures: Counter<'kind' | 'name' | 'plugin'>;
  /** The same counts as plain numbers, for readers that cannot wait for prom-client's async collection. */
  private readonly counts = { requests: 0, errors: 0, scheduled: 0, failed: 0 };

  constructor(cluster: Cluster) {
    this.requests = new Counter({
      name: 'swarm_api_requests_total',
      help: 'Docker API requests answered, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'swarm_api_request_duration_seconds',
      help: 'Time to answer a Docker API request (until the response ends), by method and route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.decisions = new Counter({
      name: 'swarm_scheduling_decisions_total',
      help: 'Placements asked through the API (container create, build), by kind and result',
      labelNames: ['kind', 'result'],
      registers: [this.registry],
    });
    this.pluginFailures = new Counter({
      name: 'swarm_plugin_failures_total',
      help: 'Requests a plugin failed (a filter or strategy that threw at a placement), by kind, name and package',
      labelNames: ['kind', 'name', 'plugin'],
      registers: [this.registry],
    });
    new Gauge({
      name: 'swarm_nodes',
      help: 'Nodes of the cluster by status',
      labelNames: ['status'],
      registers: [this.registry],
      collect() {
        const counts = new Map<NodeStatus, number>(NODE_STATUSES.map((status) => [status, 0]));
        for (const node of cluster.nodes()) counts.set(node.status(), (counts.get(node.status()) ?? 0) + 1);
        for (const [status, count] of counts) this.set({ status }, count);
      },
    });
    new Gauge({
      name: 'swarm_node_healthy',
      help: 'Whether each node is healthy (1) or not (0)',
      labelNames: ['node'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const node of cluster.nodes()) this.set({ node: node.name }, node.isHealthy() ? 1 : 0);
      },
    });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
    this.counts.requests++;
    if (status >= 500) this.counts.errors++;
  }

  observeScheduling(kind: 'container' | 'build', succeeded: boolean): void {
    this.decisions.inc({ kind, result: succeeded ? 'scheduled' : 'failed' });
    if (succeeded) this.counts.scheduled++;
    else this.counts.failed++;
  }

  observePluginFailure(kind: string, name: string, plugin: string): void {
    this.pluginFailures.inc({ kind, name, plugin });
  }

  /** Requests, 5xx answers and placements (scheduled, failed) since the server started. */
  totals(): Readonly<{ requests: number; errors: number; scheduled: number; failed: number }> {
    return { ...this.counts };
  }
}
