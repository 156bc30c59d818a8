import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily, MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from '../src/api/prometheus-text.js';

// The manager's metrics text is held to what prom-client 15 (the client it used before) writes for
// the same families and observations, labels given in the same order: scrapers and dashboards
// that read the old text read the new one.

const BUCKETS = [0.001, 0.5, 10];
const AWKWARD = 'a"b\\c\nd';

type RequestLabels = { method: string; route: string; status: string };
type LatencyLabels = { method: string; route: string };

/** The same observations, through either implementation. */
function observeAll(
  requests: { inc(labels: RequestLabels): void },
  events: { inc(): void },
  latency: { observe(labels: LatencyLabels, value: number): void },
): void {
  requests.inc({ method: 'GET', route: '/x', status: '200' });
  requests.inc({ method: 'GET', route: '/x', status: '200' });
  requests.inc({ method: 'POST', route: '/y', status: '500' });
  events.inc();
  for (const value of [0.0005, 0.001, 0.2, 20]) latency.observe({ method: 'GET', route: '/x' }, value);
  latency.observe({ method: 'POST', route: '/y' }, 0.7);
}

function ours(): string {
  const registry = new MetricsRegistry();
  const requests = registry.register(
    new CounterFamily({ name: 'req_total', help: 'Requests "quoted" \\ and\nsplit', labelNames: ['method', 'route', 'status'] }),
  );
  const events = registry.register(new CounterFamily({ name: 'events_total', help: 'Events' }));
  registry.register(new CounterFamily({ name: 'unused_total', help: 'Never counted', labelNames: ['kind'] }));
  const latency = registry.register(
    new HistogramFamily({ name: 'latency_seconds', help: 'Latency', labelNames: ['method', 'route'] }, BUCKETS),
  );
  registry.register(
    new GaugeFamily({ name: 'nodes', help: 'Nodes', labelNames: ['status'] }, (set) => {
      set(3, { status: 'healthy' });
      set(1.5, { status: AWKWARD });
    }),
  );
  registry.register(new GaugeFamily({ name: 'unset', help: 'Never set' }, () => undefined));
  registry.register(new GaugeFamily({ name: 'large', help: 'Large' }, (set) => set(1e21)));
  observeAll(requests, events, latency);
  return registry.render();
}

async function promClients(): Promise<string> {
  const registers = [new Registry()];
  const requests = new Counter({
    name: 'req_total',
    help: 'Requests "quoted" \\ and\nsplit',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const events = new Counter({ name: 'events_total', help: 'Events', registers });
  new Counter({ name: 'unused_total', help: 'Never counted', labelNames: ['kind'], registers });
  const latency = new Histogram({ name: 'latency_seconds', help: 'Latency', labelNames: ['method', 'route'], buckets: BUCKETS, registers });
  new Gauge({
    name: 'nodes',
    help: 'Nodes',
    labelNames: ['status'],
    registers,
    collect() {
      this.set({ status: 'healthy' }, 3);
      this.set({ status: AWKWARD }, 1.5);
    },
  });
  new Gauge({ name: 'unset', help: 'Never set', registers, collect: () => undefined });
  new Gauge({
    name: 'large',
    help: 'Large',
    registers,
    collect() {
      this.set(1e21);
    },
  });
  observeAll(requests, events, latency);
  return registers[0]!.metrics();
}

describe('Prometheus text exposition', () => {
  it('writes what prom-client writes for the same counters, gauges and histograms', async () => {
    expect(ours()).toBe(await promClients());
  });

  it('keeps one series per label values whatever order the labels were given in', () => {
    const registry = new MetricsRegistry();
    const family = registry.register(new CounterFamily({ name: 'c_total', help: 'C', labelNames: ['a', 'b'] }));
    family.inc({ a: '1', b: '2' });
    family.inc({ b: '2', a: '1' });
    expect(registry.render()).toBe('# HELP c_total C\n# TYPE c_total counter\nc_total{a="1",b="2"} 2\n');
  });

  it('reads gauges afresh at every scrape: a series no longer set is gone', () => {
    let names = ['n1', 'n2'];
    const registry = new MetricsRegistry();
    registry.register(
      new GaugeFamily({ name: 'up', help: 'Up', labelNames: ['node'] }, (set) => {
        for (const node of names) set(1, { node });
      }),
    );
    expect(registry.render()).toContain('up{node="n2"} 1');
    names = ['n1'];
    expect(registry.render()).toBe('# HELP up Up\n# TYPE up gauge\nup{node="n1"} 1\n');
  });

  it('writes infinities and NaN as Prometheus spells them', () => {
    const registry = new MetricsRegistry();
    registry.register(
      new GaugeFamily({ name: 'v', help: 'V', labelNames: ['k'] }, (set) => {
        set(Infinity, { k: 'up' });
        set(-Infinity, { k: 'down' });
        set(Number.NaN, { k: 'none' });
      }),
    );
    expect(registry.render()).toBe('# HELP v V\n# TYPE v gauge\nv{k="up"} +Inf\nv{k="down"} -Inf\nv{k="none"} NaN\n');
  });

  it('is served as text format 0.0.4', () => {
    expect(PROMETHEUS_CONTENT_TYPE).toBe(new Registry().contentType);
  });
});
