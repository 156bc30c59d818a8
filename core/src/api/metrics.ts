import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Cluster, NodeStatus } from '@swarm/plugin-sdk';
import type { ManagerRole } from '../replication/manager-role.js';
import type { CallOutcome } from '../plugins/plugin-guard.js';
import { CounterFamily, GaugeFamily, HistogramFamily, MetricsRegistry } from './prometheus-text.js';

/** What a manager is now: alone (no `--replication`), the primary, or a replica forwarding to it. */
export type ManagerRoleName = 'standalone' | 'primary' | 'replica';
const ROLE_NAMES: readonly ManagerRoleName[] = ['standalone', 'primary', 'replica'];

export function managerRoleName(role: ManagerRole | undefined): ManagerRoleName {
  if (!role) return 'standalone';
  return role.isPrimary ? 'primary' : 'replica';
}

const NODE_STATUSES: readonly NodeStatus[] = ['pending', 'healthy', 'unhealthy', 'disconnected'];

function nodesByStatus(cluster: Cluster): Record<NodeStatus, number> {
  const counts: Record<NodeStatus, number> = { pending: 0, healthy: 0, unhealthy: 0, disconnected: 0 };
  for (const node of cluster.nodes()) counts[node.status()]++;
  return counts;
}

function containerCounts(cluster: Cluster): { total: number; running: number } {
  let total = 0;
  let running = 0;
  for (const node of cluster.nodes()) {
    const containers = node.containers();
    total += containers.length;
    for (const container of containers) if (container.state === 'running') running++;
  }
  return { total, running };
}

/** Open file descriptors (Linux's /proc; undefined elsewhere). */
function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

/** The manager's numbers as `/_swarm/metrics` reports them, read at once (the web view shows these). */
export interface MetricsSnapshot {
  readonly uptimeSeconds: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly openFds: number | undefined;
  /** The event loop's delay p99 since the last scrape of the metrics, in seconds. */
  readonly eventLoopDelayP99Seconds: number;
  readonly nodes: Readonly<Record<NodeStatus, number>>;
  readonly containers: { readonly total: number; readonly running: number };
  readonly requests: number;
  readonly errors: number;
  readonly scheduled: number;
  readonly failed: number;
  readonly events: number;
}

/** The Prometheus metrics of one API server (own registry: two deployments in a process never mix). */
export class ApiMetrics {
  readonly registry = new MetricsRegistry();
  private readonly requests: CounterFamily<'method' | 'route' | 'status'>;
  private readonly latency: HistogramFamily<'method' | 'route'>;
  private readonly decisions: CounterFamily<'kind' | 'result'>;
  private readonly pluginFailures: CounterFamily<'kind' | 'name' | 'plugin'>;
  private readonly pluginCalls: CounterFamily<'kind' | 'name' | 'plugin' | 'outcome'>;
  private readonly pluginLatency: HistogramFamily<'kind' | 'name' | 'plugin'>;
  private readonly clusterEvents: CounterFamily;
  /** The same counts as plain numbers, for the web view and `docker info`. */
  private readonly counts = { requests: 0, errors: 0, scheduled: 0, failed: 0, events: 0 };
  private readonly started = Date.now();
  private readonly loopDelay: IntervalHistogram;

  constructor(
    private readonly cluster: Cluster,
    role: () => ManagerRoleName = () => 'standalone',
  ) {
    this.loopDelay = monitorEventLoopDelay({ resolution: 20 });
    this.loopDelay.enable();
    this.processMetrics();
    const registry = this.registry;
    registry.register(
      new GaugeFamily(
        {
          name: 'swarm_manager_role',
          help: "This manager's role: 1 for the one it has now (standalone, primary or replica)",
          labelNames: ['role'],
        },
        (set) => {
          const now = role();
          for (const name of ROLE_NAMES) set(name === now ? 1 : 0, { role: name });
        },
      ),
    );
    this.clusterEvents = registry.register(
      new CounterFamily({ name: 'swarm_events_total', help: 'Cluster events seen (what docker events streams)' }),
    );
    this.requests = registry.register(
      new CounterFamily({
        name: 'swarm_api_requests_total',
        help: 'Docker API requests answered, by method, route and status',
        labelNames: ['method', 'route', 'status'],
      }),
    );
    this.latency = registry.register(
      new HistogramFamily(
        {
          name: 'swarm_api_request_duration_seconds',
          help: 'Time to answer a Docker API request (until the response ends), by method and route',
          labelNames: ['method', 'route'],
        },
        [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      ),
    );
    this.decisions = registry.register(
      new CounterFamily({
        name: 'swarm_scheduling_decisions_total',
        help: 'Placements asked through the API (container create, build), by kind and result',
        labelNames: ['kind', 'result'],
      }),
    );
    this.pluginFailures = registry.register(
      new CounterFamily({
        name: 'swarm_plugin_failures_total',
        help: 'Requests a plugin failed (a filter or strategy that threw at a placement), by kind, name and package',
        labelNames: ['kind', 'name', 'plugin'],
      }),
    );
    this.pluginCalls = registry.register(
      new CounterFamily({
        name: 'swarm_plugin_calls_total',
        help: "Calls into plugins, by kind, name, package and outcome (ok, failed, timeout); a filter's or strategy's is one per placement pass",
        labelNames: ['kind', 'name', 'plugin', 'outcome'],
      }),
    );
    this.pluginLatency = registry.register(
      new HistogramFamily(
        {
          name: 'swarm_plugin_call_duration_seconds',
          help: "Time in a plugin call (a filter's prepare, a strategy's rank, an access plugin's or driver's call until it settles)",
          labelNames: ['kind', 'name', 'plugin'],
        },
        [0.0001, 0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10, 60],
      ),
    );
    registry.register(
      new GaugeFamily({ name: 'swarm_nodes', help: 'Nodes of the cluster by status', labelNames: ['status'] }, (set) => {
        const counts = nodesByStatus(cluster);
        for (const status of NODE_STATUSES) set(counts[status], { status });
      }),
    );
    registry.register(
      new GaugeFamily(
        { name: 'swarm_containers', help: 'Containers of the cluster, by state (running, or any other)', labelNames: ['state'] },
        (set) => {
          const { total, running } = containerCounts(cluster);
          set(running, { state: 'running' });
          set(total - running, { state: 'other' });
        },
      ),
    );
    registry.register(
      new GaugeFamily({ name: 'swarm_node_healthy', help: 'Whether each node is healthy (1) or not (0)', labelNames: ['node'] }, (set) => {
        for (const node of cluster.nodes()) set(node.isHealthy() ? 1 : 0, { node: node.name });
      }),
    );
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

  /** One call into a plugin (the deployment's PluginGuard reports here). */
  pluginCall(kind: string, name: string, plugin: string, seconds: number, outcome: CallOutcome): void {
    this.pluginCalls.inc({ kind, name, plugin, outcome });
    this.pluginLatency.observe({ kind, name, plugin }, seconds);
  }

  /**
   * The process's own numbers under the names Prometheus' client libraries use, so existing
   * dashboards read them; a chosen few rather than a client library's whole default set.
   */
  private processMetrics(): void {
    const started = this.started;
    const loopDelay = this.loopDelay;
    const gauge = (name: string, help: string, collect: (set: (value: number) => void) => void) =>
      this.registry.register(new GaugeFamily({ name, help }, collect));
    gauge('process_resident_memory_bytes', 'Resident memory size in bytes', (set) => set(process.memoryUsage.rss()));
    gauge('nodejs_heap_size_used_bytes', 'JavaScript heap in use, in bytes', (set) => set(process.memoryUsage().heapUsed));
    gauge('process_start_time_seconds', 'When the manager started, in seconds since the Unix epoch', (set) =>
      set(Math.floor(started / 1000)),
    );
    gauge('process_open_fds', 'Open file descriptors (sockets included)', (set) => {
      const count = openFds();
      if (count !== undefined) set(count);
    });
    gauge('nodejs_eventloop_lag_p99_seconds', "The 99th percentile of the event loop's delay since the last scrape, in seconds", (set) => {
      set(loopDelay.percentile(99) / 1e9);
      loopDelay.reset();
    });
  }

  /** Stops watching the event loop (the server is closing). */
  close(): void {
    this.loopDelay.disable();
  }

  countEvent(): void {
    this.clusterEvents.inc();
    this.counts.events++;
  }

  /** Requests, 5xx answers and placements (scheduled, failed) since the server started. */
  totals(): Readonly<{ requests: number; errors: number; scheduled: number; failed: number }> {
    const { requests, errors, scheduled, failed } = this.counts;
    return { requests, errors, scheduled, failed };
  }

  /** Every number the metrics report, computed as their collection computes it. */
  snapshot(): MetricsSnapshot {
    const memory = process.memoryUsage();
    return {
      uptimeSeconds: Math.round((Date.now() - this.started) / 1000),
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      openFds: openFds(),
      eventLoopDelayP99Seconds: this.loopDelay.percentile(99) / 1e9,
      nodes: nodesByStatus(this.cluster),
      containers: containerCounts(this.cluster),
      ...this.counts,
    };
  }
}
